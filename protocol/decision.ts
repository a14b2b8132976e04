import { z } from 'zod';
import { JsonObject, JsonValue } from './json.js';
import { Name } from './name.js';
import { SealedSecret, SecretText } from './secret.js';
import { ApprovalStatus } from './status.js';

const Message = z.string().max(4_000);

/**
 * One proposed call of a plan, as the human finally orders and shapes it.
 *
 * @example
 * ```ts
 * import type { Decision, PlanStep } from 'countersign';
 *
 * const plan: PlanStep[] = [
 *   { tool: 'create_user', args: { email: 'ana@example.com' }, toolCallId: 'call_1' },
 *   { tool: 'send_welcome', args: { email: 'ana@example.com' } }, // added by the reviewer
 * ];
 * const decision: Decision = { type: 'edit', plan, message: 'Welcome her too.' };
 * ```
 */
export const PlanStep = z.strictObject({
  tool: Name,
  args: JsonObject,
  /** The model's call id when the step was proposed by the model; absent for steps a human added. */
  toolCallId: z.string().optional(),
  /**
   * Who added the step, for steps a human added: the run records it from the edit that added the
   * step (a value sent with a decision is ignored). That person is the step's requester.
   */
  addedBy: z.string().optional(),
});
export type PlanStep = z.infer<typeof PlanStep>;

/**
 * Approve this call and the later ones like it in the run, where the tool's policy allows it
 * (`standing`); with a quorum, only if every sign-off that meets it asks for it too.
 */
const Standing = z.boolean().optional();
const Approve = z.strictObject({
  type: z.literal('approve'),
  message: Message.optional(),
  standing: Standing,
});
const Edit = z.strictObject({
  type: z.literal('edit'),
  /** New arguments for a single call. */
  args: JsonObject.optional(),
  /** The reworked plan, for plan approvals: reordered, cut, or extended with registered tools. */
  plan: z.array(PlanStep).max(50).optional(),
  message: Message.optional(),
  standing: Standing,
});
const Reject = z.strictObject({ type: z.literal('reject'), message: Message.optional() });
/** A `respond` answers with its `result`, or with a secret, as typed or as sealed. */
const respondWith = <Secret extends 'secret' | 'sealed'>(key: Secret, secret: z.ZodString) =>
  z
    .strictObject({
      type: z.literal('respond'),
      /** The answer, result or outcome the person gives. */
      result: JsonValue.optional(),
      message: Message.optional(),
      ...({ [key]: secret.optional() } as Record<Secret, z.ZodOptional<z.ZodString>>),
    })
    .refine(oneAnswer, ONE_ANSWER)
    // The same rule in the JSON Schema and OpenAPI document, which a refinement does not reach.
    .meta({ oneOf: [{ required: ['result'] }, { required: [key] }] });
const oneAnswer = (value: { result?: unknown; secret?: unknown; sealed?: unknown }) =>
  [value.result, value.secret, value.sealed].filter((answer) => answer !== undefined).length === 1;
const ONE_ANSWER = { message: 'a response carries exactly one of result or secret' };

/**
 * The body a human sends: the one definition used by the REST API, the CLI, email links and the inbox.
 * An `edit` carries the whole new arguments, not only the changed ones. A `respond` carries a
 * `result`, or, for an approval of kind `secret`, the `secret` (which the API seals at once).
 *
 * @example
 * ```ts
 * import { Decision } from 'countersign';
 *
 * const approve: Decision = { type: 'approve', message: 'Checked with the customer.' };
 * const edit: Decision = { type: 'edit', args: { orderId: 'A-1', amount: 200 }, message: 'Partial refund.' };
 * const answer = Decision.parse({ type: 'respond', result: { balance: 1200 } });
 * const password: Decision = { type: 'respond', secret: 'typed by the person' }; // kind `secret` only
 * ```
 */
export const Decision = z.discriminatedUnion('type', [
  Approve,
  Edit,
  Reject,
  // The secret an approval of kind `secret` asks for, as typed; sealed by the API, never stored.
  respondWith('secret', SecretText),
]);
export type Decision = z.infer<typeof Decision>;

/**
 * A decision as the workflow receives it: a {@link Decision} whose secret, if any, the API has
 * sealed. The workflow refuses a plain one, so a secret typed by a person never enters a history.
 *
 * @example
 * ```ts
 * import type { SignalDecision } from 'countersign';
 *
 * const supplied: SignalDecision = { type: 'respond', sealed: 'cs1:s1:q83vEjd...' };
 * ```
 */
export const SignalDecision = z.discriminatedUnion('type', [
  Approve,
  Edit,
  Reject,
  // The secret, sealed by the API for the activity that runs the tool.
  respondWith('sealed', SealedSecret),
]);
export type SignalDecision = z.infer<typeof SignalDecision>;

/**
 * Where a decision or a cancellation came from, as the audit trail records it.
 *
 * @example
 * ```ts
 * import { cancelRun } from 'countersign/client';
 * import { type Channel } from 'countersign';
 *
 * const channel: Channel = 'api'; // your own service, through REST or the client helpers
 * await cancelRun(client, runId, { actor: 'lee', channel });
 * ```
 */
export const Channel = z.enum(['api', 'inbox', 'email', 'cli', 'slack', 'chat']);
export type Channel = z.infer<typeof Channel>;

/**
 * Who decides, as a decision carries them: an id, and the roles they hold now. The workflow checks
 * the roles against the approval's requirements.
 *
 * @example
 * ```ts
 * import type { Approver } from 'countersign';
 *
 * const approver: Approver = { id: 'lee@example.com', roles: ['support-lead'] };
 * ```
 */
export const Approver = z.strictObject({
  id: z.string().min(1).max(200),
  roles: z.array(z.string().min(1)).max(50),
});
export type Approver = z.infer<typeof Approver>;

/**
 * The payload of the workflow's `decision` signal. The workflow checks all of it again.
 *
 * @example
 * ```ts
 * import { randomUUID } from 'node:crypto';
 * import { sendDecision } from 'countersign/client';
 * import { type DecisionSignal } from 'countersign';
 *
 * const signal: DecisionSignal = {
 *   trackingId: approval.trackingId,
 *   decision: { type: 'reject', message: 'Not this quarter.' },
 *   approver: { id: 'lee', roles: ['finance'] },
 *   channel: 'api',
 *   requestId: randomUUID(), // send it again with the same id, not a new one, when unsure it arrived
 *   revision: approval.revision,
 * };
 * await sendDecision(client, signal);
 * ```
 */
export const DecisionSignal = z.strictObject({
  trackingId: z.string().min(1).max(200),
  decision: SignalDecision,
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

/**
 * Why the workflow refused a decision; the API maps each to an HTTP status.
 *
 * @example
 * ```ts
 * import { sendDecision } from 'countersign/client';
 *
 * const outcome = await sendDecision(client, signal);
 * if (outcome?.code === 'stale_revision') console.log('the proposal changed: read it again, then decide');
 * ```
 */
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
  'standing_not_allowed', // 400: a standing approval where the policy allows none
]);
export type RefusalCode = z.infer<typeof RefusalCode>;

/**
 * One field-level problem with a request or an edit. `path` is a JSON Pointer (RFC 6901) into
 * what was sent, in every channel: `/args/amount`, `/plan/0/args/sql`; `''` is the whole body.
 *
 * @example
 * ```ts
 * import { sendDecision } from 'countersign/client';
 *
 * const outcome = await sendDecision(client, signal);
 * for (const { path, message } of outcome?.fieldErrors ?? []) console.log(`${path || 'body'}: ${message}`);
 * ```
 */
export const FieldError = z.strictObject({ path: z.string(), message: z.string() });
export type FieldError = z.infer<typeof FieldError>;

/**
 * What the workflow did with one decision signal, readable by its request id.
 *
 * @example
 * ```ts
 * import { sendDecision } from 'countersign/client';
 * import { type DecisionOutcome } from 'countersign';
 *
 * const outcome: DecisionOutcome | null = await sendDecision(client, signal);
 * if (outcome === null) console.log('not taken yet: is a worker running?');
 * else if (outcome.accepted) console.log(outcome.status, outcome.approvals, outcome.requiredApprovals);
 * else console.log(`refused (${outcome.code}): ${outcome.reason}`);
 * ```
 */
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
