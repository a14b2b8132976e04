/**
 * The events the chat routes stream, as the chat's OpenAPI document describes them: the AI SDK's
 * UI message chunks (ui-message-stream.ts writes them) and AG-UI events (ag-ui-events.ts). Each says
 * what a client may rely on; an object may carry more than it lists, as the protocols allow.
 * test/api/chat-openapi.test.ts reads real streams against them.
 */
import { z } from 'zod';
import { ApiErrorCode } from '../../errors/api-error-codes.js';
import {
  ApprovalKind,
  ApprovalStatus,
  DecisionType,
  FieldError,
  JsonObject,
  RunStatus,
} from '../../protocol/index.js';
import { APPROVAL_ID } from './approval-id.js';

const ApprovalId = z.string().regex(APPROVAL_ID).describe('`<trackingId>@<revision>`: the revision shown.');

/** An approval as the chat shows it (run-parts.ts `ApprovalShown`). */
export const ChatApproval = z.object({
  approvalId: ApprovalId,
  trackingId: z.string(),
  revision: z.int().min(1),
  kind: ApprovalKind,
  tool: z.string(),
  toolCallId: z.string(),
  description: z.string(),
  args: JsonObject,
  schema: JsonObject.describe('The JSON Schema edited arguments must meet.'),
  allowedDecisions: z.array(DecisionType),
  editableFields: z.array(z.string()).optional(),
  needs: z.array(z.string()).describe('Each requirement, with how many sign-offs it has, in words.'),
  signedBy: z.array(z.string()),
  deadline: z.string(),
});

/** A settled approval: how it ended, by whom (run-parts.ts `ApprovalDecided`). */
export const ChatApprovalDecided = z.object({
  trackingId: z.string(),
  toolCallId: z.string(),
  tool: z.string(),
  status: ApprovalStatus,
  by: z.array(z.string()),
  message: z.string().optional(),
  args: JsonObject.optional().describe('The arguments the call ran with, when someone edited it.'),
  decisions: z.array(z.object({ actor: z.string(), at: z.string() })),
});

/** A decision sent from the chat that the rules refused: it changed nothing. */
export const ChatDecisionRefused = z.object({
  approvalId: ApprovalId,
  trackingId: z.string(),
  toolCallId: z.string(),
  code: z.string().describe('Why, as a stable code (`role_not_allowed`, `stale_revision`, …).'),
  reason: z.string(),
  fields: z.array(FieldError).optional(),
});

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

/** A tool-call interrupt of AG-UI: what the person answering needs, and the answer it takes. */
export const AgUiInterruptSchema = z.object({
  id: ApprovalId,
  reason: z.literal('tool_call'),
  message: z.string(),
  toolCallId: z.string(),
  responseSchema: JsonObject.describe('The JSON Schema of the answer (`AgUiDecision`).'),
  expiresAt: z.string(),
  metadata: z.object({ countersign: ChatApproval }),
});

/** Countersign's part of the AG-UI agent's state. */
export const AgUiStateSchema = z.object({
  countersign: z.object({
    runId: z.string(),
    status: RunStatus.optional(),
    reason: z.string().optional(),
    approvals: z.record(z.string(), approvalState).describe('By tracking id.'),
    refused: z.record(z.string(), ChatDecisionRefused).describe('By approval id.'),
  }),
});

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
