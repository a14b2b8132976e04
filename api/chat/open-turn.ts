/**
 * A POST's turn: the run that answers the chat's `turn`th user message, started when it does not
 * exist yet. A new turn reads the conversation so far from the previous turn's run, in Temporal:
 * never from the messages the client sent, which are its own copy and may say anything.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { startRun } from '../../client/index.js';
import type { AgentDefinition } from '../../define/index.js';
import type { ApproverIdentity, TranscriptMessage } from '../../protocol/index.js';
import { searchAttributeKeys } from '../../workflows/search-attributes.js';
import { accessOfDescription, accessRule } from '../access.js';
import type { ApiOptions } from '../context.js';
import { HttpError } from '../errors.js';
import { readState } from '../runs/run-reads.js';
import { chatRunId, describeTurn } from './chat-runs.js';

/**
 * The most of the earlier conversation a turn carries, as JSON: its run's input is one payload,
 * and a run that continues as new sends it again beside its state. Older turns are left out first.
 */
const MAX_CONTEXT_BYTES = 256_000;

export interface TurnRequest {
  chatId: string;
  turn: number;
  /** The text of the turn's user message: the run's input when it starts. */
  text: string;
  caller: ApproverIdentity;
}

/** The turn's run id, once it exists and the caller may read it. */
export async function openTurn(
  options: ApiOptions,
  agent: AgentDefinition,
  request: TurnRequest,
): Promise<string> {
  const { client } = options;
  const { chatId, turn, text, caller } = request;
  const runId = chatRunId(chatId, turn);
  const access = accessRule(options);
  const readable = async () => {
    const existing = await describeTurn(client, chatId, turn);
    if (existing && !access.mayRead(caller, accessOfDescription(existing)))
      throw new HttpError(404, `no run ${runId}`, { code: 'not_found' });
    return existing !== undefined;
  };
  // This turn was started already: the request answers its approvals, or repeats it.
  if (await readable()) return runId;
  if (!text)
    throw new HttpError(400, 'the last user message has no text to start a turn with', {
      code: 'invalid_request',
      fields: [{ path: '/messages', message: 'the last user message needs a text part' }],
    });
  const context = turn > 1 ? await previousConversation(options, request) : undefined;
  try {
    await startRun(client, {
      agent,
      input: text,
      requester: caller.id,
      taskQueue: options.taskQueue,
      defaultModel: options.defaultModel,
      runId,
      ...(context ? { context } : {}),
    });
  } catch (err) {
    // The same POST sent twice at once: the other one started it.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    if (!(await readable())) throw err;
  }
  return runId;
}

/**
 * The conversation up to the end of the previous turn, as its run holds it. Refused while that
 * turn still runs or waits, and to anyone but the person who started the chat.
 */
async function previousConversation(options: ApiOptions, request: TurnRequest): Promise<TranscriptMessage[]> {
  const { chatId, turn, caller } = request;
  const previousId = chatRunId(chatId, turn - 1);
  const previous = await describeTurn(options.client, chatId, turn - 1);
  const access = previous && accessOfDescription(previous);
  if (!previous || !access || !accessRule(options).mayRead(caller, access))
    throw new HttpError(
      409,
      `chat ${chatId} has no turn ${turn - 1}: a chat's turns are sent in order, from its first`,
      { code: 'chat_turn_missing' },
    );
  if (access.requester !== caller.id)
    throw new HttpError(
      403,
      `only ${access.requester ?? 'the person who started it'} adds turns to chat ${chatId}`,
      {
        code: 'chat_not_yours',
      },
    );
  if (previous.status.name === 'RUNNING')
    throw new HttpError(
      409,
      `turn ${turn - 1} of chat ${chatId} has not ended (run ${previousId} is ${previous.typedSearchAttributes.get(searchAttributeKeys.status) ?? 'running'}): answer its approvals, or wait for its answer, before the next message`,
      { code: 'chat_turn_in_progress' },
    );
  const state = await readState(options.client, previousId, options.workerWaitMs);
  return recentMessages(state.transcript);
}

/** The latest messages within the bound, from a user message on, without the system prompt. */
function recentMessages(transcript: TranscriptMessage[]): TranscriptMessage[] {
  const messages = transcript.filter((message) => message.role !== 'system');
  const encoder = new TextEncoder();
  let start = messages.length;
  let bytes = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    bytes += encoder.encode(JSON.stringify(messages[i])).length;
    if (bytes > MAX_CONTEXT_BYTES) break;
    if (messages[i]!.role === 'user') start = i;
  }
  return messages.slice(start);
}
