import { ApplicationFailure, Context } from '@temporalio/activity';
import OpenAI from 'openai';
import { whileHeartbeating } from './keep-alive.js';
import type { ModelCallInput, ModelInput, ModelReply } from '../workflows/activity-types.js';
import { modelInputQuery } from '../workflows/definitions.js';
import type { ContentStore } from '../content-store/content-store.js';
import { ContentStoreMismatch, readStoredOutput } from '../content-store/read-stored-output.js';
import { storedOutputOf } from '../protocol/stored-output.js';
import { queryRun } from '../client/query-run.js';

/**
 * How a worker reaches the model: any OpenAI-compatible endpoint. Only activities read it, so the
 * key never enters a workflow history.
 *
 * @example
 * ```ts
 * import { createWorker, type ModelSettings } from 'countersign/worker';
 *
 * // A local OpenAI-compatible server, for every agent whatever model it names.
 * const model: ModelSettings = { baseUrl: 'http://localhost:11434/v1', name: 'llama3.1', timeoutMs: 60_000 };
 * const worker = await createWorker({ connection, agents: [support], model });
 * ```
 */
export interface ModelSettings {
  /** Any OpenAI-compatible endpoint; OpenAI's own when absent. */
  baseUrl?: string;
  /** Stays in this closure: never in a workflow history. */
  apiKey?: string;
  /** When set, every run's model calls use this model name instead of the one its agent names. */
  name?: string;
  /** Per request, in milliseconds. */
  timeoutMs?: number;
  /** The openai client's own retries on 408/409/429/5xx and connection errors, before Temporal's. */
  maxRetries?: number;
}

/** Retrying cannot fix these: a bad request, bad credentials, an unknown model. */
function isPermanent(err: unknown): boolean {
  if (!(err instanceof OpenAI.APIError) || err.status === undefined) return false;
  return err.status >= 400 && err.status < 500 && ![408, 409, 429].includes(err.status);
}

/** The conversation and tools, as the call carries them or, by reference, read from the run. */
async function modelInput(input: ModelCallInput): Promise<ModelInput> {
  if (!('transcript' in input)) return input;
  const { workflowId, runId, length } = input.transcript;
  const read = await queryRun(
    Context.current().client.workflow.getHandle(workflowId, runId),
    modelInputQuery,
    length,
  );
  // The run answers with what it had when it asked; anything else is a bug worth a retry, not a guess.
  if (read.messages.length !== length) {
    throw new Error(`the run answered ${read.messages.length} messages for a call on ${length}`);
  }
  return read;
}

/**
 * The conversation with each stored tool output read back from the content store: only those the
 * run records as its worker's. Calls scheduled by earlier versions carry no record, and read none.
 * An output kept in another store than this worker's fails the attempt, naming the setting: it
 * stays retryable, since another worker of the queue may hold the right store.
 */
async function withStoredOutputs(input: ModelInput, store: ContentStore | undefined): Promise<ModelInput> {
  const messages = await Promise.all(
    input.messages.map(async (message) => {
      const stored = storedOutputOf(message, input.storedOutputs);
      if (!stored) return message;
      if (!store) {
        throw ApplicationFailure.nonRetryable(
          `a tool output of this run is in a content store (${stored.ref}), and this worker has none: give every worker the same contentStore`,
          'NoContentStore',
        );
      }
      try {
        return { ...message, content: await readStoredOutput(store, stored) };
      } catch (err) {
        if (!(err instanceof ContentStoreMismatch)) throw err;
        throw ApplicationFailure.retryable(err.explain('worker', store.location), 'ContentStoreMismatch');
      }
    }),
  );
  return { ...input, messages };
}

export function createCallModel(settings: ModelSettings, store?: ContentStore) {
  const openai = new OpenAI({
    apiKey: settings.apiKey ?? 'countersign-no-key',
    baseURL: settings.baseUrl,
    maxRetries: settings.maxRetries ?? 3,
    timeout: settings.timeoutMs ?? 120_000,
  });

  return async function callModel(input: ModelCallInput): Promise<ModelReply> {
    const { messages, tools } = await withStoredOutputs(await modelInput(input), store);
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await whileHeartbeating(() =>
        openai.chat.completions.create(
          {
            model: settings.name ?? input.model,
            messages,
            ...(tools.length > 0 ? { tools } : {}),
          },
          { signal: Context.current().cancellationSignal },
        ),
      );
    } catch (err) {
      if (isPermanent(err)) {
        throw ApplicationFailure.nonRetryable(
          `model refused the request: ${(err as Error).message}`,
          'ModelRequestError',
        );
      }
      throw err;
    }
    const message = completion.choices[0]?.message;
    if (!message) throw new Error('the model answered with no choices');
    const toolCalls = (message.tool_calls ?? []).flatMap((call) =>
      call.type === 'function'
        ? [
            {
              id: call.id,
              type: 'function' as const,
              function: { name: call.function.name, arguments: call.function.arguments },
            },
          ]
        : [],
    );
    return { content: message.content ?? null, toolCalls };
  };
}
