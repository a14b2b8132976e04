import {
  serveChatCompletions,
  type AssistantReply,
  type ChatCompletionRequest,
  type ErrorReply,
  type ModelReply,
} from '../model-server/chat-completions-server.js';

export type { AssistantReply, ChatCompletionRequest, ErrorReply, ModelReply };

/**
 * One scripted step of a conversation: a fixed reply ({@link calls}, {@link say}, {@link fail}), or a
 * function of the request, to answer from what the model was sent (the tool results, for example).
 *
 * @example
 * ```ts
 * import { call, calls, say, type ScriptStep } from 'countersign/testing';
 *
 * const steps: ScriptStep[] = [
 *   calls(call('refund_order', { orderId: 'A-1', amount: 250 })),
 *   (request) => say(`The tool said: ${request.messages.at(-1)?.content}`),
 * ];
 * ```
 */
export type ScriptStep = ModelReply | ((request: ChatCompletionRequest) => ModelReply | Promise<ModelReply>);

/**
 * A scripted conversation, as {@link FakeModel.script} returns it: the requests the model has
 * received so far, to assert on what the agent sent it.
 *
 * @example
 * ```ts
 * const conversation = fake.script('Refund order A-1', calls(call('refund_order', { orderId: 'A-1' })), say('Done.'));
 * // ... once the run has finished:
 * assert.equal(conversation.requests.length, 2);
 * assert.match(conversation.toolMessages().values().next().value ?? '', /refunded/);
 * ```
 */
export interface Conversation {
  /** Every Chat Completions request of this conversation, in order. */
  requests: ChatCompletionRequest[];
  /** Tool messages the model has been sent so far, by tool call id (from the latest request). */
  toolMessages(): Map<string, string>;
}

interface Script extends Conversation {
  steps: ScriptStep[];
}

/**
 * A scripted OpenAI-compatible model served over real HTTP (`POST /v1/chat/completions`), so an
 * agent under test goes through the real `openai` client, its retries included. Conversations are
 * keyed by the run's input (the first user message), so many runs can share one fake model and one
 * worker. A request whose input has no script is answered with a `400` naming the input.
 *
 * @example
 * ```ts
 * import { FakeModel, call, calls, say } from 'countersign/testing';
 * import { createWorker } from 'countersign/worker';
 *
 * const fake = await FakeModel.start();
 * fake.script(
 *   'Refund order A-1',
 *   calls(call('refund_order', { orderId: 'A-1', amount: 250 })), // first the model asks for the tool
 *   say('Refunded $250 on order A-1.'), // then, given its result, it answers
 * );
 * const worker = await createWorker({
 *   connection,
 *   agents: [support],
 *   model: { baseUrl: fake.url, apiKey: 'test' },
 * });
 * // ... start a run whose input is 'Refund order A-1', decide its approval, check the result ...
 * await fake.close();
 * ```
 */
export class FakeModel {
  private constructor(
    /** The base URL to give an OpenAI client (`baseURL`) or a worker (`model.baseUrl`); ends in `/v1`. */
    readonly url: string,
    private readonly server: { close(): Promise<void> },
    private readonly scripts: Map<string, Script>,
  ) {}

  /**
   * Starts the fake model on `host` (default `127.0.0.1`) and `port` (default: a free one).
   *
   * @example
   * ```ts
   * const fake = await FakeModel.start();
   * const openai = new OpenAI({ baseURL: fake.url, apiKey: 'test' });
   * ```
   */
  static async start(options: { host?: string; port?: number } = {}): Promise<FakeModel> {
    const scripts = new Map<string, Script>();
    const server = await serveChatCompletions((request) => FakeModel.reply(scripts, request), options);
    return new FakeModel(server.url, server, scripts);
  }

  /**
   * Scripts the replies for the conversation whose first user message is `input`: each request
   * takes the next step, and the last step repeats if the run asks again. Scripting the same input
   * again replaces its script.
   *
   * @example
   * ```ts
   * fake.script('Transfer $2,500 to Bob', calls(call('transfer', { to: 'bob', amount: 2500 })), say('Done.'));
   * ```
   */
  script(input: string, ...steps: ScriptStep[]): Conversation {
    const requests: ChatCompletionRequest[] = [];
    const script: Script = {
      steps,
      requests,
      toolMessages() {
        const last = requests.at(-1);
        const found = new Map<string, string>();
        for (const m of last?.messages ?? []) if (m.role === 'tool') found.set(m.tool_call_id, m.content);
        return found;
      },
    };
    this.scripts.set(input, script);
    return script;
  }

  /**
   * Stops the server and closes its connections.
   *
   * @example
   * ```ts
   * after(() => fake.close());
   * ```
   */
  close(): Promise<void> {
    return this.server.close();
  }

  private static reply(
    scripts: Map<string, Script>,
    request: ChatCompletionRequest,
  ): ModelReply | Promise<ModelReply> {
    const input = request.messages.find((m) => m.role === 'user')?.content;
    const script = typeof input === 'string' ? scripts.get(input) : undefined;
    if (!script) return { status: 400, message: `fake model: no script for input ${JSON.stringify(input)}` };
    script.requests.push(request);
    const step = script.steps.length > 1 ? script.steps.shift()! : script.steps[0];
    if (step === undefined) return { status: 400, message: 'fake model: script is empty' };
    return typeof step === 'function' ? step(request) : step;
  }
}

/**
 * A reply that asks for one or more tool calls (several run side by side in one turn). Arguments
 * are given as objects and sent as JSON text, as OpenAI does; a call without an `id` gets a unique
 * one.
 *
 * @example
 * ```ts
 * fake.script(
 *   'Pay both invoices',
 *   calls(call('pay', { invoice: 1 }, 'c1'), call('pay', { invoice: 2 }, 'c2')),
 *   say('Both paid.'),
 * );
 * ```
 */
export function calls(
  ...toolCalls: { name: string; args: Record<string, unknown>; id?: string }[]
): AssistantReply {
  return {
    content: null,
    tool_calls: toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.args },
    })),
  };
}

/**
 * One tool call, for {@link calls}: the tool's name, its arguments, and optionally the call id.
 *
 * @example
 * ```ts
 * calls(call('transfer', { amount: 5 }, 'c1'));
 * ```
 */
export function call(
  name: string,
  args: Record<string, unknown>,
  id?: string,
): { name: string; args: Record<string, unknown>; id?: string } {
  return { name, args, id };
}

/**
 * A final answer: a reply with text and no tool calls, which ends the run.
 *
 * @example
 * ```ts
 * fake.script('What is my balance?', say('Your balance is $120.'));
 * ```
 */
export function say(content: string): AssistantReply {
  return { content };
}

/**
 * An HTTP error in the model's place, to test retries: the `openai` client retries 408, 409, 429
 * and 5xx (a short `retry-after-ms` keeps its backoff brief); other 4xx fail the model call.
 *
 * @example
 * ```ts
 * // The first request fails with a 429, the client retries, the second answers.
 * fake.script('Hello', fail(429), say('Hi!'));
 * ```
 */
export function fail(status: number, message = `injected ${status}`): ErrorReply {
  return { status, message };
}
