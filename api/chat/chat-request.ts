/**
 * What a chat front end POSTs, as the AI SDK's default chat transport sends it
 * (`{ id, messages, trigger, messageId }`, plus whatever `body` the app adds), validated here at the
 * edge. Only three things are read from it: the chat id, how many user messages it holds (which
 * turn this is) with the last one's text, and the approval responses. The rest of the history is
 * the client's copy, untrusted: the run reads its conversation from Temporal.
 */
import { z } from 'zod';
import { JsonObject } from '../../protocol/index.js';
import { APPROVAL_ID, parseApprovalId, type ApprovalRef } from './approval-id.js';

/** A chat id names its runs (`chat-<id>-<turn>`), so it keeps to a run id's characters. */
export const CHAT_ID = /^[A-Za-z0-9_-]{1,100}$/;
export const ChatId = z.string().regex(CHAT_ID, 'a chat id is 1 to 100 letters, digits, _ or -');

/** The most messages and parts a request may carry: a long chat is far below them. */
const MAX_MESSAGES = 2000;
const MAX_PARTS = 500;
/** As long as a run's input may be (`StartRunRequest`). */
const MAX_TEXT = 20_000;

const ApprovalId = z.string().regex(APPROVAL_ID, 'an approval id as the stream gave it');

/** A tool part the person answered (`addToolApprovalResponse`): the one part a decision comes from. */
const ApprovalResponsePart = z.looseObject({
  type: z.string().regex(/^(tool-.+|dynamic-tool)$/),
  toolCallId: z.string().max(200),
  state: z.literal('approval-responded'),
  approval: z.looseObject({
    id: ApprovalId,
    approved: z.boolean(),
    reason: z.string().max(4000).optional(),
  }),
});

const TextPart = z.looseObject({ type: z.literal('text'), text: z.string().max(MAX_TEXT) });

/** Any other part: read for nothing, only bounded. */
const OtherPart = z.looseObject({
  type: z.string().min(1).max(200),
  state: z
    .string()
    .max(50)
    .refine((state) => state !== 'approval-responded', 'an answered approval names its approval id')
    .optional(),
});

const ChatMessage = z.looseObject({
  id: z.string().max(200),
  role: z.enum(['system', 'user', 'assistant']),
  parts: z.array(z.union([ApprovalResponsePart, TextPart, OtherPart])).max(MAX_PARTS),
});

/**
 * Countersign's extension for what the AI SDK's approval response cannot carry: an edit. Sent in the
 * request body beside the messages (`addToolApprovalResponse({ id, approved: true, options: { body:
 * { countersign: { edits: { [id]: { args } } } } } })`), it turns that approval into an edit with
 * these whole arguments.
 */
export const ChatExtension = z.strictObject({
  edits: z
    .record(ApprovalId, z.strictObject({ args: JsonObject }))
    .refine((edits) => Object.keys(edits).length <= 50, 'at most 50 edits')
    .optional(),
});

export const ChatRequest = z.looseObject({
  id: ChatId,
  messages: z.array(ChatMessage).min(1).max(MAX_MESSAGES),
  trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
  messageId: z.string().max(200).optional(),
  countersign: ChatExtension.optional(),
});
export type ChatRequest = z.infer<typeof ChatRequest>;

/** One approval the person answered in the chat, with what it becomes. */
export interface ApprovalResponse extends ApprovalRef {
  approvalId: string;
  toolCallId: string;
  approved: boolean;
  reason?: string;
  /** The whole arguments of an edit, from the extension. */
  editedArgs?: JsonObject;
}

/** The turn a request is for: how many user messages it holds, and the last one's text. */
export function turnOf(request: ChatRequest): { turn: number; text: string } {
  const users = request.messages.filter((message) => message.role === 'user');
  const last = users.at(-1);
  const text = (last?.parts ?? [])
    .flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
    .join('\n')
    .trim();
  return { turn: users.length, text };
}

/** How many steps the client already shows of the response it continues (its last message). */
export function stepsShown(request: ChatRequest): number {
  const last = request.messages.at(-1);
  if (last?.role !== 'assistant') return 0;
  return last.parts.filter((part) => part.type === 'step-start').length;
}

/** Every approval the person answered, with the edits the extension carries. */
export function approvalResponses(request: ChatRequest): ApprovalResponse[] {
  const edits = request.countersign?.edits ?? {};
  const responses = new Map<string, ApprovalResponse>();
  for (const message of request.messages) {
    if (message.role !== 'assistant') continue;
    for (const part of message.parts) {
      const answered = ApprovalResponsePart.safeParse(part);
      if (!answered.success) continue;
      const { id, approved, reason } = answered.data.approval;
      const ref = parseApprovalId(id)!;
      const edit = approved ? edits[id] : undefined;
      responses.set(id, {
        ...ref,
        approvalId: id,
        toolCallId: answered.data.toolCallId,
        approved,
        ...(reason ? { reason } : {}),
        ...(edit ? { editedArgs: edit.args } : {}),
      });
    }
  }
  return [...responses.values()];
}
