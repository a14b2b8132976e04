import { z } from 'zod';
import { JsonObject, JsonValue } from './json.js';
import { Name } from './agent.js';
import { ApprovalStatus } from './status.js';

const Message = z.string().max(4_000);

/** One proposed call of a plan, as the human finally orders and shapes it. */
export const PlanStep = z.strictObject({
  tool: Name,
  args: JsonObject,
  /** The model's call id when the step was proposed by the model; absent for steps a human added. */
  toolCallId: z.string().optional(),
});
export type PlanStep = z.infer<typeof PlanStep>;

/** The body a human sends: the one definition used by the REST API, the CLI, email links and the inbox. */
export const Decision = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('approve'), message: Message.optional() }),
  z.strictObject({
    type: z.literal('edit'),
    /** New arguments for a single call. */
    args: JsonObject.optional(),
    /** The reworked plan, for plan approvals: reordered, cut, or extended with registered tools. */
    plan: z.array(PlanStep).max(50).optional(),
    message: Message.optional(),
  }),
  z.strictObject({ type: z.literal('reject'), message: Message.optional() }),
  z.strictObject({ type: z.literal('respond'), result: JsonValue, message: Message.optional() }),
]);
export type Decision = z.infer<typeof Decision>;

export const Channel = z.enum(['api', 'inbox', 'email', 'cli']);
export type Channel = z.infer<typeof Channel>;

export const Approver = z.strictObject({
  id: z.string().min(1).max(200),
  roles: z.array(z.string().min(1)).max(50),
});
export type Approver = z.infer<typeof Approver>;

/** The payload of the workflow's `decision` signal. The workflow checks all of it again. */
export const DecisionSignal = z.strictObject({
  trackingId: z.string().min(1).max(200),
  decision: Decision,
  approver: Approver,
  channel: Channel,
  /** Idempotency: a second signal with the same request id changes nothing. */
  requestId: z.string().min(1).max(200),
  /** Single-use email links: the workflow remembers the nonces it has taken. */
  linkNonce: z.string().min(1).max(200).optional(),
  /** The approval's revision its author was shown; a decision on any other changes nothing. */
  revision: z.number().int().min(1).optional(),
  /**
   * What the request was (approval, decision, revision), digested by the API: the same idempotency
   * key sent again with another request is refused instead of answered with the first outcome.
   */
  fingerprint: z.string().min(1).max(200).optional(),
});
export type DecisionSignal = z.infer<typeof DecisionSignal>;

/** Why the workflow refused a decision; the API maps each to an HTTP status. */
export const RefusalCode = z.enum([
  'unknown_approval', // 404
  'already_settled', // 409
  'decision_not_allowed', // 400
  'invalid_arguments', // 400
  'role_not_allowed', // 403
  'self_approval', // 403
  'already_approved_by_you', // 409
  'link_used', // 409
  'policy_denied', // 400: an edit the tool's policy would refuse
  'stale_revision', // 412: the proposal changed since its author saw it
  'revision_required', // 428: the decision names no revision
]);
export type RefusalCode = z.infer<typeof RefusalCode>;

/**
 * One field-level problem with a request or an edit. `path` is a JSON Pointer (RFC 6901) into
 * what was sent, in every channel: `/args/amount`, `/plan/0/args/sql`; `''` is the whole body.
 */
export const FieldError = z.strictObject({ path: z.string(), message: z.string() });
export type FieldError = z.infer<typeof FieldError>;

/** What the workflow did with one decision signal, readable by its request id. */
export const DecisionOutcome = z.strictObject({
  requestId: z.string(),
  trackingId: z.string(),
  accepted: z.boolean(),
  code: RefusalCode.optional(),
  reason: z.string().optional(),
  fieldErrors: z.array(FieldError).optional(),
  /** The approval's status after this decision (still `pending` while a quorum is short). */
  status: ApprovalStatus,
  approvals: z.number().int(),
  requiredApprovals: z.number().int(),
  /** The approval's revision after this decision. */
  revision: z.number().int().optional(),
  /** The request's fingerprint, when it had one. */
  fingerprint: z.string().optional(),
  at: z.string(),
});
export type DecisionOutcome = z.infer<typeof DecisionOutcome>;
