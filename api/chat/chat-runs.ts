/**
 * A chat is a chain of runs, one per user turn, each named from the chat id and the turn's number
 * (`chat-<chatId>-<turn>`), so finding a chat's runs reads no list (lists lag behind writes on a
 * real cluster): each is described by its name.
 */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { RunInput } from '../../protocol/index.js';
import { decodePayload } from '../../client/decode-payload.js';
import { HttpError } from '../errors.js';
import { historyEvents } from '../live/history-pages.js';
import { describeRun } from '../runs/run-reads.js';

/** The run of a chat's `turn`th user message (turns count from 1). */
export function chatRunId(chatId: string, turn: number): string {
  return `chat-${chatId}-${turn}`;
}

/** The turn's run, or undefined when the chat has no such turn. */
export async function describeTurn(
  client: Client,
  chatId: string,
  turn: number,
): Promise<WorkflowExecutionDescription | undefined> {
  try {
    return await describeRun(client, chatRunId(chatId, turn));
  } catch (err) {
    if (err instanceof HttpError && err.status === 404) return undefined;
    throw err;
  }
}

/**
 * The chat's latest turn and its run, or undefined when it has none. Turns are numbered without
 * gaps, so the last is found by doubling then halving: a few reads, however long the chat.
 */
export async function latestTurn(
  client: Client,
  chatId: string,
): Promise<{ turn: number; description: WorkflowExecutionDescription } | undefined> {
  const first = await describeTurn(client, chatId, 1);
  if (!first) return undefined;
  let found = { turn: 1, description: first };
  let missing: number | undefined;
  for (let turn = 2; missing === undefined; turn *= 2) {
    const description = await describeTurn(client, chatId, turn);
    if (description) found = { turn, description };
    else missing = turn;
  }
  while (missing - found.turn > 1) {
    const turn = Math.floor((found.turn + missing) / 2);
    const description = await describeTurn(client, chatId, turn);
    if (description) found = { turn, description };
    else missing = turn;
  }
  return found;
}

/**
 * How many messages of the run's conversation came before its own user message (the chat's earlier
 * turns), from the input it was started with: a server-only read of its first history event.
 */
export async function contextLength(client: Client, namespace: string, runId: string): Promise<number> {
  for await (const first of historyEvents(client, namespace, { workflowId: runId }, { pageSize: 1 })) {
    const payload = first.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    const input = (await decodePayload(client, payload)) as Partial<RunInput> | undefined;
    return Array.isArray(input?.context) ? input.context.length : 0;
  }
  return 0;
}
