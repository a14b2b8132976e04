/**
 * The events the chat routes stream, as the chat's OpenAPI document describes them: the AI SDK's
 * UI message chunks (ui-message-stream.ts writes them) and AG-UI events (ag-ui-events.ts). Each says
 * what a client may rely on; an object may carry more than it lists, as the protocols allow.
 * These schemas are the one definition: the writers' types are inferred from them, so the compiler
 * holds what they write to the document, and test/api/chat-openapi.test.ts reads real streams
 * against it.
 */
import { z } from 'zod';
import { ApiErrorCode } from '../../errors/api-error-codes.js';
import {
  ApprovalKind,
  ApprovalStatus,
  ArgChange,
  Channel,
  DecisionType,
  FieldError,
  JsonObject,
  JsonSchema,
  Requirement,
  RunStatus,
  SubAgentChain,
} from '../../protocol/index.js';
import { APPROVAL_ID } from './approval-id.js';

const ApprovalId = z.string().regex(APPROVAL_ID).describe('`<trackingId>@<revision>`: the revision shown.');

/** An approval as the chat shows it: what a person needs to decide it, or to see who must. */
export const ChatApproval = z.object({
  approvalId: ApprovalId,
  trackingId: z.string(),
  revision: z.int().min(1),
  kind: ApprovalKind,
  tool: z.string(),
  toolCallId: z.string(),
  description: z.string(),
  args: JsonObject.describe('The arguments proposed, as of the revision shown.'),
  schema: JsonSchema.describe('The JSON Schema edited arguments must meet.'),
  allowedDecisions: z.array(DecisionType),
  editableFields: z.array(z.string()).optional(),
  requirements: z
    .array(Requirement.extend({ have: z.int().min(0).describe('The qualifying sign-offs it has.') }))
    .describe('Each requirement, with how many qualifying sign-offs it has.'),
  needs: z
    .array(z.string())
    .describe('The same, in words: `treasurer: 0 of 1 (large transfer: transfer: amount over 10000)`.'),
  signedBy: z.array(z.string()).describe('Who has signed the shown revision so far.'),
  deadline: z.string(),
  chain: SubAgentChain.optional().describe(
    "A sub-agent's approval: the agents it came through. `toolCallId` is then the chat run's call of the sub-agent.",
  ),
});
export type ChatApproval = z.infer<typeof ChatApproval>;

/** A settled approval: how it ended, by whom, and through which channels. */
export const ChatApprovalDecided = z.object({
  trackingId: z.string(),
  toolCallId: z.string(),
  tool: z.string(),
  status: ApprovalStatus,
  by: z.array(z.string()),
  at: z.string().optional(),
  message: z.string().optional(),
  args: JsonObject.optional().describe('The arguments the call ran with, when someone edited it.'),
  diff: z.array(ArgChange).optional().describe('What the edit changed.'),
  decisions: z
    .array(
      z.object({
        actor: z.string(),
        channel: Channel.optional(),
        decision: DecisionType.optional(),
        message: z.string().optional(),
        at: z.string(),
      }),
    )
    .describe('Each decision taken on it, in order, with the message its author gave.'),
});
export type ChatApprovalDecided = z.infer<typeof ChatApprovalDecided>;

/** A decision the person sent from the chat that the rules refused: it changed nothing. */
export const ChatDecisionRefused = z.object({
  approvalId: ApprovalId,
  trackingId: z.string(),
  toolCallId: z.string(),
  code: ApiErrorCode.describe('Why, as a stable code (`role_not_allowed`, `stale_revision`, …).'),
  reason: z.string(),
  fields: z.array(FieldError).optional(),
});
export type ChatDecisionRefused = z.infer<typeof ChatDecisionRefused>;

const approvalState = z.discriminatedUnion('state', [
  ChatApproval.extend({ state: z.enum(['requested', 'waiting']) }),
  ChatApprovalDecided.extend({ state: z.literal('decided') }),
]);

/**
 * One chunk of the AI SDK's UI message stream (protocol v1), the subset Countersign writes.
 * Countersign's own are data parts: `data-countersign-approval` (by tracking id: asked of the
 * reader, waiting for others, or decided), `data-countersign-refused` (by approval id) and
 * `data-countersign-run` (the run and its status).
 */
export const UiMessageChunkSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('start'), messageId: z.string().optional() }),
  z.strictObject({ type: z.literal('start-step') }),
  z.strictObject({ type: z.literal('finish-step') }),
  z.strictObject({ type: z.literal('text-start'), id: z.string() }),
  z.strictObject({ type: z.literal('text-delta'), id: z.string(), delta: z.string() }),
  z.strictObject({ type: z.literal('text-end'), id: z.string() }),
  z.strictObject({
    type: z.literal('tool-input-available'),
    toolCallId: z.string(),
    toolName: z.string(),
    input: z.unknown(),
  }),
  z.strictObject({
    type: z.literal('tool-approval-request'),
    approvalId: ApprovalId,
    toolCallId: z.string(),
  }),
  z.strictObject({ type: z.literal('tool-output-available'), toolCallId: z.string(), output: z.unknown() }),
  z.strictObject({ type: z.literal('tool-output-denied'), toolCallId: z.string() }),
  z.strictObject({ type: z.literal('tool-output-error'), toolCallId: z.string(), errorText: z.string() }),
  z.strictObject({ type: z.literal('data-countersign-approval'), id: z.string(), data: approvalState }),
  z.strictObject({ type: z.literal('data-countersign-refused'), id: ApprovalId, data: ChatDecisionRefused }),
  z.strictObject({
    type: z.literal('data-countersign-run'),
    id: z.string(),
    data: z.strictObject({ runId: z.string(), status: RunStatus, reason: z.string().optional() }),
  }),
  z.strictObject({ type: z.literal('error'), errorText: z.string() }),
  z.strictObject({
    type: z.literal('finish'),
    finishReason: z.enum(['stop', 'tool-calls', 'error', 'other']),
  }),
]);
/** The chunks ui-message-stream.ts writes: a subset of the AI SDK's `UIMessageChunk`. */
export type UiMessageChunk = z.infer<typeof UiMessageChunkSchema>;

/** A tool-call interrupt of AG-UI: what the person answering needs, and the answer it takes. */
export const AgUiInterruptSchema = z.object({
  // The approval id: the answer decides exactly the proposal shown.
  id: ApprovalId,
  reason: z.literal('tool_call'),
  message: z.string().describe('The call and its requirements, in words.'),
  toolCallId: z.string(),
  responseSchema: JsonObject.describe('The JSON Schema of the answer (`AgUiDecision`).'),
  expiresAt: z.string().describe("The approval's deadline."),
  metadata: z.object({ countersign: ChatApproval }),
});
/**
 * A tool-call interrupt: what the person answering needs, and the answer it takes.
 *
 * @example
 * ```ts
 * import type { AgUiInterrupt } from 'countersign/api';
 *
 * function describe(interrupt: AgUiInterrupt): string {
 *   return `${interrupt.message} (answer by ${interrupt.expiresAt})`;
 * }
 * ```
 */
export type AgUiInterrupt = z.infer<typeof AgUiInterruptSchema>;

/** Countersign's part of the AG-UI agent's state: the turn's run, its approvals, the refusals. */
export const AgUiStateSchema = z.object({
  countersign: z.object({
    runId: z.string(),
    status: RunStatus.optional(),
    reason: z.string().optional(),
    approvals: z
      .record(z.string(), approvalState)
      .describe("By tracking id, as the AI SDK's `data-countersign-approval` parts show them."),
    refused: z
      .record(z.string(), ChatDecisionRefused)
      .describe("By approval id: decisions of the caller's that changed nothing."),
  }),
});
/**
 * What Countersign keeps in the AG-UI agent's state: the turn's run, its approvals, the refusals.
 *
 * @example
 * ```ts
 * import type { AgUiState } from 'countersign/api';
 *
 * const waiting = (state: AgUiState) =>
 *   Object.values(state.countersign.approvals).filter((approval) => approval.state === 'waiting');
 * ```
 */
export type AgUiState = z.infer<typeof AgUiStateSchema>;

/** One AG-UI event (protocol 1.0), the subset Countersign writes. */
export const AgUiEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('RUN_STARTED'),
    threadId: z.string(),
    runId: z.string(),
    protocolVersion: z.literal('1.0'),
  }),
  z.object({ type: z.literal('TEXT_MESSAGE_START'), messageId: z.string(), role: z.literal('assistant') }),
  z.object({ type: z.literal('TEXT_MESSAGE_CONTENT'), messageId: z.string(), delta: z.string() }),
  z.object({ type: z.literal('TEXT_MESSAGE_END'), messageId: z.string() }),
  z.object({
    type: z.literal('TOOL_CALL_START'),
    toolCallId: z.string(),
    toolCallName: z.string(),
    parentMessageId: z.string(),
  }),
  z.object({ type: z.literal('TOOL_CALL_ARGS'), toolCallId: z.string(), delta: z.string() }),
  z.object({ type: z.literal('TOOL_CALL_END'), toolCallId: z.string() }),
  z.object({
    type: z.literal('TOOL_CALL_RESULT'),
    messageId: z.string(),
    toolCallId: z.string(),
    role: z.literal('tool'),
    content: z.string(),
    metadata: z.object({ countersign: z.object({ outcome: z.enum(['output', 'denied', 'error']) }) }),
  }),
  z.object({ type: z.literal('STATE_SNAPSHOT'), snapshot: AgUiStateSchema }),
  z.object({ type: z.literal('CUSTOM'), name: z.literal('countersign.refused'), value: ChatDecisionRefused }),
  z.object({
    type: z.literal('RUN_FINISHED'),
    threadId: z.string(),
    runId: z.string(),
    outcome: z.discriminatedUnion('type', [
      z.object({ type: z.enum(['success', 'cancelled']) }),
      z.object({ type: z.literal('interrupt'), interrupts: z.array(AgUiInterruptSchema).min(1) }),
    ]),
  }),
  z.object({
    type: z.literal('RUN_ERROR'),
    message: z.string(),
    code: z
      .union([ApiErrorCode, z.literal('run_failed')])
      .describe('A stable code: `run_failed` when the run failed, else why the request was refused.'),
    metadata: z.object({ countersign: z.object({ fields: z.array(FieldError) }) }).optional(),
  }),
]);
/** The events ag-ui-events.ts writes: a subset of `@ag-ui/core`'s `Event`. */
export type AgUiEvent = z.infer<typeof AgUiEventSchema>;
