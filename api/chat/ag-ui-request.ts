/**
 * What an AG-UI client POSTs: a `RunAgentInput` (`{ threadId, runId, messages, state, tools,
 * context, forwardedProps, resume }`, as `HttpAgent` sends it), validated here at the edge. Read from
 * it: the thread (the chat id), the client's run id (echoed on the events), how many user messages
 * it holds (which turn this is) with the last one's text, the ids of what the client already shows
 * (so it is not sent again), and the resume entries. The rest (its copy of the conversation, its
 * state, tools and context) is the client's, untrusted: the run reads its conversation from Temporal.
 */
import { z } from 'zod';
import { JsonObject } from '../../protocol/index.js';
import { APPROVAL_ID, parseApprovalId, type ApprovalRef } from './approval-id.js';
import { ChatId } from './chat-request.js';

/** As in a chat request: far above a long conversation, and as long as a run's input may be. */
const MAX_MESSAGES = 2000;
const MAX_TEXT = 20_000;
const Id = z.string().min(1).max(200);

const TextPart = z.looseObject({ type: z.literal('text'), text: z.string().max(MAX_TEXT) });
/** A user message's content: text, or parts of which only the text ones are read. */
const UserContent = z.union([
  z.string().max(MAX_TEXT),
  z.array(z.union([TextPart, z.looseObject({ type: z.string().min(1).max(100) })])).max(100),
]);

const Message = z.discriminatedUnion('role', [
  z.looseObject({ id: Id, role: z.literal('user'), content: UserContent }),
  z.looseObject({
    id: Id,
    role: z.literal('assistant'),
    toolCalls: z
      .array(z.looseObject({ id: Id }))
      .max(500)
      .optional(),
  }),
  z.looseObject({ id: Id, role: z.literal('tool'), toolCallId: Id }),
  z.looseObject({ id: Id, role: z.enum(['developer', 'system', 'activity', 'reasoning']) }),
]);

/**
 * The answer to a tool-call interrupt: AG-UI's approve-with-edits convention, and the reason a
 * rejection gives the model. `editedArgs` are the whole new arguments, not merged.
 *
 * @example
 * ```ts
 * import type { AgUiDecision } from 'countersign/api';
 *
 * const lower: AgUiDecision = { approved: true, editedArgs: { to: 'acme', amount: 900 } };
 * const no: AgUiDecision = { approved: false, reason: 'Not this quarter.' };
 * ```
 */
export const AgUiDecision = z
  .strictObject({
    approved: z.boolean(),
    editedArgs: JsonObject.optional(),
    reason: z.string().max(4000).optional(),
  })
  .refine((answer) => answer.approved || !answer.editedArgs, {
    message: 'editedArgs go with approved: true (an edit approves the edited call)',
    path: ['editedArgs'],
  });
export type AgUiDecision = z.infer<typeof AgUiDecision>;

const InterruptId = z.string().regex(APPROVAL_ID, 'an interrupt id as the run gave it');

/** `cancelled`: the person left it unanswered, which decides nothing. */
const ResumeEntry = z.discriminatedUnion('status', [
  z.looseObject({ interruptId: InterruptId, status: z.literal('resolved'), payload: AgUiDecision }),
  z.looseObject({ interruptId: InterruptId, status: z.literal('cancelled') }),
]);

export const AgUiRunInput = z.looseObject({
  threadId: ChatId,
  runId: Id,
  messages: z.array(Message).max(MAX_MESSAGES),
  resume: z.array(ResumeEntry).max(50).optional(),
});
export type AgUiRunInput = z.infer<typeof AgUiRunInput>;

/** The turn an input is for: how many user messages it holds, and the last one's text. */
export function agUiTurn(input: AgUiRunInput): { turn: number; text: string } {
  const users = input.messages.filter((message) => message.role === 'user');
  const content = users.at(-1)?.content ?? '';
  const text =
    typeof content === 'string'
      ? content
      : content
          .flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
          .join('\n');
  return { turn: users.length, text: text.trim() };
}

/** The ids of the messages, tool calls and tool results the client already holds. */
export interface Held {
  messages: Set<string>;
  toolCalls: Set<string>;
  results: Set<string>;
}

export function heldBy(input: AgUiRunInput): Held {
  const held: Held = { messages: new Set(), toolCalls: new Set(), results: new Set() };
  for (const message of input.messages) {
    held.messages.add(message.id);
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) held.toolCalls.add(call.id);
    if (message.role === 'tool') held.results.add(message.toolCallId);
  }
  return held;
}

/** A resume entry's answer, for the approval (and the revision) its interrupt named. */
export interface AgUiAnswer extends ApprovalRef {
  approvalId: string;
  /** Absent: the interrupt was cancelled, which decides nothing. */
  decision?: AgUiDecision;
}

export function agUiAnswers(input: AgUiRunInput): AgUiAnswer[] {
  return (input.resume ?? []).map((entry) => ({
    ...parseApprovalId(entry.interruptId)!,
    approvalId: entry.interruptId,
    ...(entry.status === 'resolved' ? { decision: entry.payload } : {}),
  }));
}
