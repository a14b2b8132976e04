import { open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import OpenAI from 'openai';
import { z } from 'zod';
import { Agent, OpenAIChatCompletionsModel, RunState, run, setTracingDisabled, tool } from '@openai/agents';
import { serveDriver } from '../lib/driver.js';
import { INSTRUCTIONS, MODEL_NAME, TOOL_DESCRIPTION, TOOL_NAME, toolResult } from '../lib/scenario.js';

const dataDir = process.env.BENCH_DATA_DIR!;
setTracingDisabled(true);

const action = tool({
  name: TOOL_NAME,
  description: TOOL_DESCRIPTION,
  parameters: z.object({ ref: z.string() }),
  needsApproval: true,
  execute: async ({ ref }) => toolResult(ref),
});

// The SDK's declarations resolve openai's CommonJS types, ours its ESM ones: one class at run time.
const openai = new OpenAI({ apiKey: 'bench', baseURL: process.env.BENCH_MODEL_URL }) as never;

const agent = new Agent({
  name: 'bench',
  instructions: INSTRUCTIONS,
  model: new OpenAIChatCompletionsModel(openai, MODEL_NAME),
  tools: [action],
});

interface Run {
  input: string;
  file: string;
  answer?: string;
  /** The adapter's writes to the state file since the decision: the SDK itself writes nothing. */
  writes?: number;
}

/** Durable the way the SDK's docs suggest: the serialized RunState, written and fsynced. */
async function persist(file: string, text: string): Promise<void> {
  const handle = await open(file, 'w');
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

let files = 0;

serveDriver<Run>('openai-agents', {
  async startPaused(input) {
    const result = await run(agent, input);
    if (result.interruptions.length === 0) throw new Error(`agents run ${input} did not pause`);
    const file = path.join(dataDir, `run-${files++}.json`);
    await persist(file, result.state.toString());
    return { input, file };
  },
  async approve(run_) {
    // A decision may reach any process: the run is resumed from its file, not from memory.
    const state = await RunState.fromString(agent, await readFile(run_.file, 'utf8'));
    for (const interruption of state.getInterruptions()) state.approve(interruption);
    const result = await run(agent, state);
    run_.answer = String(result.finalOutput ?? '');
    await rm(run_.file);
    // Nothing is written while the tool runs: the one write is the file's removal at the end.
    run_.writes = 1;
  },
  async finished() {},
  answer: async (run_) => run_.answer ?? '',
  inputOf: (run_) => run_.input,
  roundTrips: async (run_) => ({ writes: run_.writes ?? 0 }),
});
