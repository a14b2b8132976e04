import {
  serveChatCompletions,
  type AssistantReply,
  type ChatCompletionRequest,
  type ErrorReply,
  type ModelReply,
} from '../../model-server/chat-completions-server.js';

export type { ChatCompletionRequest, ModelReply };

/** One scripted step: a fixed reply, or a function of the request (to read tool results first). */
export type ScriptStep = ModelReply | ((request: ChatCompletionRequest) => ModelReply);

/** A scripted conversation: the requests the model received and the replies still to give. */
export interface Conversation {
  requests: ChatCompletionRequest[];
  /** Tool messages the model has been sent so far, by tool call id (from the latest request). */
  toolMessages(): Map<string, string>;
}

interface Script extends Conversation {
  steps: ScriptStep[];
}

/**
 * A scripted OpenAI-compatible model over real HTTP. Conversations are keyed by the run's user
 * input (the first user message), so many runs can share one fake model and one worker.
 */
export class FakeModel {
  private constructor(
    readonly url: string,
    private readonly server: { close(): Promise<void> },
    private readonly scripts: Map<string, Script>,
  ) {}

  static async start(): Promise<FakeModel> {
    const scripts = new Map<string, Script>();
    const server = await serveChatCompletions((request) => FakeModel.reply(scripts, request));
    return new FakeModel(server.url, server, scripts);
  }

  /** Script the replies for the run whose input is `input`; the last step repeats if the run asks again. */
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

  close(): Promise<void> {
    return this.server.close();
  }

  private static reply(scripts: Map<string, Script>, request: ChatCompletionRequest): ModelReply {
    const input = request.messages.find((m) => m.role === 'user')?.content;
    const script = typeof input === 'string' ? scripts.get(input) : undefined;
    if (!script) return { status: 400, message: `fake model: no script for input ${JSON.stringify(input)}` };
    script.requests.push(request);
    const step = script.steps.length > 1 ? script.steps.shift()! : script.steps[0];
    if (step === undefined) return { status: 400, message: 'fake model: script is empty' };
    return typeof step === 'function' ? step(request) : step;
  }
}

/** A reply with tool calls: `call('transfer', { amount: 5 }, 'c1')`. */
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

export function call(name: string, args: Record<string, unknown>, id?: string) {
  return { name, args, id };
}

/** A final answer. */
export function say(content: string): AssistantReply {
  return { content };
}

/** An injected HTTP error, for retry tests. */
export function fail(status: number, message = `injected ${status}`): ErrorReply {
  return { status, message };
}
