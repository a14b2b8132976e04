import path from 'node:path';
import OpenAI from 'openai';
import { Annotation, Command, END, START, StateGraph, interrupt } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { serveDriver } from '../lib/driver.js';
import { INSTRUCTIONS, MODEL_NAME, TOOL_DESCRIPTION, TOOL_NAME, toolResult } from '../lib/scenario.js';

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

const dataDir = process.env.BENCH_DATA_DIR!;
const openai = new OpenAI({ apiKey: 'bench', baseURL: process.env.BENCH_MODEL_URL });

const State = Annotation.Root({
  messages: Annotation<Message[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: TOOL_NAME,
      description: TOOL_DESCRIPTION,
      parameters: { type: 'object', properties: { ref: { type: 'string' } }, required: ['ref'] },
    },
  },
];

async function model(state: typeof State.State) {
  const completion = await openai.chat.completions.create({
    model: MODEL_NAME,
    messages: [{ role: 'system', content: INSTRUCTIONS }, ...state.messages],
    tools,
  });
  const reply = completion.choices[0]!.message;
  return {
    messages: [{ role: 'assistant', content: reply.content, tool_calls: reply.tool_calls } as Message],
  };
}

/** The gate: `interrupt()` pauses the thread until a `Command({ resume })` carries the decision. */
function gate(state: typeof State.State) {
  const last = state.messages.at(-1) as OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam;
  const results: Message[] = [];
  for (const call of last.tool_calls ?? []) {
    if (call.type !== 'function') continue;
    const args = JSON.parse(call.function.arguments) as { ref: string };
    const decision = interrupt({ tool: call.function.name, args }) as { type: string };
    const content = decision.type === 'approve' ? toolResult(args.ref) : 'The human refused this call.';
    results.push({ role: 'tool', tool_call_id: call.id, content });
  }
  return { messages: results };
}

function route(state: typeof State.State) {
  const last = state.messages.at(-1) as OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam;
  return last.tool_calls?.length ? 'gate' : END;
}

const checkpointer = SqliteSaver.fromConnString(path.join(dataDir, 'langgraph.db'));

/**
 * The checkpointer's writes per thread, counted by wrapping its two write methods on this instance
 * (a checkpoint, a step's pending writes); each is one transaction of its SQLite file.
 */
const writes = new Map<string, number>();
for (const method of ['put', 'putWrites'] as const) {
  const write = checkpointer[method].bind(checkpointer) as (...args: unknown[]) => Promise<unknown>;
  (checkpointer as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
    const thread = String((args[0] as { configurable?: { thread_id?: string } }).configurable?.thread_id);
    writes.set(thread, (writes.get(thread) ?? 0) + 1);
    return write(...args);
  };
}
const graph = new StateGraph(State)
  .addNode('model', model)
  .addNode('gate', gate)
  .addEdge(START, 'model')
  .addConditionalEdges('model', route, ['gate', END])
  .addEdge('gate', 'model')
  .compile({ checkpointer });

interface Run {
  input: string;
  answer?: string;
}

// Durable: every checkpoint is written before the step returns.
const configFor = (input: string) => ({ configurable: { thread_id: input }, durability: 'sync' as const });

serveDriver<Run>('langgraph', {
  async startPaused(input) {
    const state = await graph.invoke({ messages: [{ role: 'user', content: input }] }, configFor(input));
    if (!('__interrupt__' in state)) throw new Error(`langgraph run ${input} did not pause`);
    return { input };
  },
  async approve(run) {
    writes.set(run.input, 0);
    const state = await graph.invoke(new Command({ resume: { type: 'approve' } }), configFor(run.input));
    run.answer = String(state.messages.at(-1)?.content ?? '');
  },
  async finished() {},
  answer: async (run) => run.answer ?? '',
  inputOf: (run) => run.input,
  roundTrips: async (run) => ({ writes: writes.get(run.input) ?? 0 }),
});
