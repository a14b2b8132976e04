import { z } from 'zod';
import { Approver, Channel } from './decision.js';
import { JsonObject, JsonValue } from './json.js';

/** The longest a standing approval may last: a week. */
const MAX_STANDING_SECONDS = 7 * 86_400;
/** The most later calls one standing approval may cover. */
const MAX_STANDING_CALLS = 1_000;

/** A number, or `'approved'`: the value of the call the standing approval was given on. */
const BoundValue = z.union([z.number(), z.literal('approved')]);

/**
 * How far one argument of a later call may stray from the approved call: a range (`min`, `max`,
 * either of them `'approved'`: the approved call's value), or a list of values (`in`).
 *
 * @example
 * ```ts
 * import type { StandingBound } from 'countersign';
 *
 * const upToTheApproved: StandingBound = { min: 0, max: 'approved' };
 * const theseCurrencies: StandingBound = { in: ['EUR', 'USD'] };
 * ```
 */
export const StandingBound = z
  .strictObject({
    min: BoundValue.optional(),
    max: BoundValue.optional(),
    in: z.array(JsonValue).min(1).max(100).optional(),
  })
  .superRefine((bound, ctx) => {
    const range = bound.min !== undefined || bound.max !== undefined;
    if (!range && bound.in === undefined)
      ctx.addIssue({ code: 'custom', message: 'a bound names min or max (a range), or in (a list)' });
    if (range && bound.in !== undefined)
      ctx.addIssue({ code: 'custom', message: 'a bound is a range (min, max) or a list (in), not both' });
    if (typeof bound.min === 'number' && typeof bound.max === 'number' && bound.min > bound.max)
      ctx.addIssue({ code: 'custom', path: ['min'], message: 'min is above max' });
  });
export type StandingBound = z.infer<typeof StandingBound>;

/**
 * Where a policy (or a tier) lets an approver approve a call "and the rest like it for this run":
 * later calls of the tool in the same run, whose arguments equal the approved call's except where
 * `bounds` lets one vary, run without asking for `maxSeconds` after the approval, at most `maxCalls`
 * of them, unless someone revokes it first. Each still passes the policy: a call it would deny, or
 * one that needs more or other approvers than signed, asks as usual.
 *
 * @example
 * ```ts
 * import type { ApprovalPolicyInput } from 'countersign';
 *
 * const approval: ApprovalPolicyInput = {
 *   approvers: ['treasury'],
 *   editableFields: ['amount'],
 *   standing: { maxSeconds: 3600, maxCalls: 5, bounds: { amount: { min: 0, max: 'approved' } } },
 * };
 * ```
 */
export const StandingTerms = z.strictObject({
  maxSeconds: z
    .number()
    .positive({ message: 'a standing approval lasts a positive number of seconds' })
    .max(MAX_STANDING_SECONDS, {
      message: `a standing approval lasts at most ${MAX_STANDING_SECONDS} seconds`,
    }),
  maxCalls: z
    .number()
    .int({ message: 'maxCalls is a whole number of calls' })
    .min(1, { message: 'a standing approval covers at least one later call' })
    .max(MAX_STANDING_CALLS, { message: `a standing approval covers at most ${MAX_STANDING_CALLS} calls` }),
  /** Top-level arguments a later call may change, and how far; every other must equal the approved one. */
  bounds: z.record(z.string().min(1), StandingBound).optional(),
  /** Not supported: a standing approval covers later calls of its own run, never another run's. */
  acrossRuns: z
    .literal(false, { message: 'a standing approval never crosses runs: acrossRuns is not supported' })
    .optional(),
});
export type StandingTerms = z.infer<typeof StandingTerms>;

/**
 * Where a standing approval stands: in force, or ended (its time passed, its calls used, revoked).
 *
 * @example
 * ```ts
 * import { StandingStatus } from 'countersign';
 *
 * const ended = (status: StandingStatus) => status !== StandingStatus.enum.active;
 * ```
 */
export const StandingStatus = z.enum(['active', 'expired', 'used', 'revoked']);
export type StandingStatus = z.infer<typeof StandingStatus>;

/**
 * A standing approval of a run, as its state shows it: given on the approval `trackingId` (its id),
 * by the people who signed that approval asking for it, on its final arguments.
 *
 * @example
 * ```ts
 * import { getRunState } from 'countersign/client';
 *
 * for (const s of (await getRunState(client, runId)).standing ?? [])
 *   if (s.status === 'active') console.log(`${s.tool}: ${s.maxCalls - s.covered.length} more calls until ${s.expiresAt}`);
 * ```
 */
export const StandingApproval = z.strictObject({
  trackingId: z.string(),
  tool: z.string(),
  /** The call whose approval gave it. */
  toolCallId: z.string(),
  /** The approved arguments later calls are compared with. */
  args: JsonObject,
  bounds: z.record(z.string(), StandingBound).optional(),
  /** Who signed it: everyone whose sign-off met the approval's quorum. */
  grantedBy: z.array(z.string()),
  /** Roles that may revoke it: those the approval asked for. */
  roles: z.array(z.string()),
  grantedAt: z.string(),
  expiresAt: z.string(),
  maxCalls: z.number().int(),
  /** The later calls it covered, by tool call id, in order. */
  covered: z.array(z.string()),
  status: StandingStatus,
  revokedBy: z.strictObject({ actor: z.string(), channel: Channel, at: z.string() }).optional(),
});
export type StandingApproval = z.infer<typeof StandingApproval>;

/**
 * The payload of the workflow's `revokeStanding` signal: who ends a standing approval, through which
 * channel. The workflow takes it only from someone holding a role the approval it came from asked for.
 *
 * @example
 * ```ts
 * import type { RevokeStandingRequest } from 'countersign';
 *
 * const revoke: RevokeStandingRequest = {
 *   trackingId: standing.trackingId,
 *   approver: { id: 'lee', roles: ['treasury'] },
 *   channel: 'api',
 * };
 * ```
 */
export const RevokeStandingRequest = z.strictObject({
  trackingId: z.string().min(1).max(200),
  approver: Approver,
  channel: Channel,
});
export type RevokeStandingRequest = z.infer<typeof RevokeStandingRequest>;
