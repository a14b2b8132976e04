import { z } from 'zod';
import { JsonValue } from './json.js';
import { StandingTerms } from './standing.js';

/**
 * What a human may do with an approval: approve it, edit it (and approve the edited version), reject
 * it, or answer in the tool's place (`respond`). A policy's `decisions` lists those it allows.
 *
 * @example
 * ```ts
 * import { DecisionType } from 'countersign';
 *
 * DecisionType.options; // ['approve', 'edit', 'reject', 'respond']
 * const canEdit = approval.allowedDecisions.includes('edit');
 * ```
 */
export const DecisionType = z.enum(['approve', 'edit', 'reject', 'respond']);
export type DecisionType = z.infer<typeof DecisionType>;

/**
 * What a policy decides for one proposed call: run it, ask a human, or refuse it outright.
 *
 * @example
 * ```ts
 * import type { ApprovalPolicyInput, Verdict } from 'countersign';
 *
 * const overLimit: Verdict = 'deny'; // refused without asking anyone; the model is told
 * const approval: ApprovalPolicyInput = {
 *   when: { if: { arg: 'amount', op: 'gt', value: 10_000 }, then: overLimit, else: 'approve' },
 * };
 * ```
 */
export const Verdict = z.enum(['auto', 'approve', 'deny']);
export type Verdict = z.infer<typeof Verdict>;

/**
 * How a condition compares the argument `arg` with `value`: order (`gt`, `gte`, `lt`, `lte`, numbers
 * or strings), JSON equality (`eq`, `ne`), membership of the list `value` (`in`), a regular
 * expression (`matches`), or presence (`exists`, which takes no value).
 *
 * @example
 * ```ts
 * import type { Condition } from 'countersign';
 *
 * const production: Condition = { arg: 'env', op: 'in', value: ['prod', 'prod-eu'] };
 * const destructive: Condition = { arg: 'sql', op: 'matches', value: '^\\s*(DROP|DELETE|TRUNCATE)\\b' };
 * ```
 */
export const ComparisonOp = z.enum(['gt', 'gte', 'lt', 'lte', 'eq', 'ne', 'in', 'matches', 'exists']);
export type ComparisonOp = z.infer<typeof ComparisonOp>;

/**
 * A condition over the proposed arguments. Policies are data, not functions, so the workflow can
 * evaluate them deterministically, the API can show them, and a running workflow keeps the policy
 * it started with. `arg` is an argument name, or a dotted path into nested objects.
 *
 * @example
 * ```ts
 * import type { Condition } from 'countersign';
 *
 * // A large refund, or any refund without a receipt.
 * const risky: Condition = {
 *   any: [{ arg: 'amount', op: 'gt', value: 1000 }, { not: { arg: 'receipt.id', op: 'exists' } }],
 * };
 * ```
 */
export type Condition =
  | { arg: string; op: ComparisonOp; value?: JsonValue }
  | RunTotalCondition
  | RunCountCondition
  | { all: Condition[] }
  | { any: Condition[] }
  | { not: Condition };

/**
 * How a running total or count compares with its bound.
 *
 * @example
 * ```ts
 * import { TotalOp } from 'countersign';
 *
 * TotalOp.options; // ['gt', 'gte', 'lt', 'lte']
 * ```
 */
export const TotalOp = z.enum(['gt', 'gte', 'lt', 'lte']);
export type TotalOp = z.infer<typeof TotalOp>;

/**
 * A cumulative limit: the run's total of the numeric argument `runTotal` over this tool's calls, this
 * call included, compared with `value`. What counts: every call of the tool the run has proposed
 * (by the model, or added to a plan by a reviewer), automatic or approved, pending or run, in every
 * turn and across continue-as-new; a call stops counting when it is refused (rejected, denied,
 * expired, or cut from a plan). A call that ran counts even if it failed: it may have moved money.
 *
 * @example
 * ```ts
 * import type { ApprovalPolicyInput } from 'countersign';
 *
 * // Past $1,000 in total this run, transfers need treasury; past $50,000, two of them.
 * const approval: ApprovalPolicyInput = {
 *   approvers: ['treasury'],
 *   when: {
 *     if: { runTotal: 'amount', op: 'gt', value: 50_000 },
 *     then: { approve: { name: 'run total over $50,000', requiredApprovals: 2 } },
 *     else: { if: { runTotal: 'amount', op: 'gt', value: 1_000 }, then: 'approve', else: 'auto' },
 *   },
 * };
 * ```
 */
export const RunTotalCondition = z.strictObject({
  runTotal: z.string().min(1),
  op: TotalOp,
  value: z.number(),
});
export type RunTotalCondition = z.infer<typeof RunTotalCondition>;

/**
 * A cumulative limit on the number of this tool's calls in the run, this call included; the same
 * calls count as for `runTotal`.
 *
 * @example
 * ```ts
 * import type { Condition } from 'countersign';
 *
 * const pastTheTenth: Condition = { runCount: true, op: 'gt', value: 10 };
 * ```
 */
export const RunCountCondition = z.strictObject({
  runCount: z.literal(true),
  op: TotalOp,
  value: z.number(),
});
export type RunCountCondition = z.infer<typeof RunCountCondition>;

export const Condition: z.ZodType<Condition> = z.lazy(() =>
  z.union([
    z.strictObject({ arg: z.string().min(1), op: ComparisonOp, value: JsonValue.optional() }),
    RunTotalCondition,
    RunCountCondition,
    z.strictObject({ all: z.array(Condition) }),
    z.strictObject({ any: z.array(Condition) }),
    z.strictObject({ not: Condition }),
  ]),
);

/**
 * What happens when nobody decides by the deadline: the approval expires and the call is refused, or
 * it escalates once to other roles with a new deadline (and expires if that passes too).
 *
 * @example
 * ```ts
 * import type { TimeoutAction } from 'countersign';
 *
 * const onTimeout: TimeoutAction = {
 *   action: 'escalate',
 *   approvers: ['treasury'],
 *   deadlineSeconds: 4 * 3600,
 * };
 * ```
 */
export const TimeoutAction = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('reject') }),
  z.strictObject({
    action: z.literal('escalate'),
    approvers: z.array(z.string().min(1)).min(1),
    deadlineSeconds: z.number().positive(),
    /**
     * By default an escalation starts a new quorum among its roles: sign-offs given before the
     * deadline stay in the audit trail but no longer count. With `keepSignoffs`, the escalation's
     * roles join the first ones instead: earlier sign-offs keep counting toward the same quorum,
     * and either roles may complete it.
     */
    keepSignoffs: z.boolean().optional(),
  }),
]);
export type TimeoutAction = z.infer<typeof TimeoutAction>;

/**
 * A reminder before an approval's deadline: those who may still decide it, and have not signed, are
 * notified once more through each channel they use, `beforeDeadlineSeconds` before the deadline.
 *
 * @example
 * ```ts
 * import type { Reminder } from 'countersign';
 *
 * const anHourBefore: Reminder = { beforeDeadlineSeconds: 3600 };
 * ```
 */
export const Reminder = z.strictObject({
  beforeDeadlineSeconds: z.number().positive({ message: 'a reminder must come before the deadline' }),
});
export type Reminder = z.infer<typeof Reminder>;

/** At most this many reminders per policy or tier: each one notifies everyone still needed. */
const MAX_REMINDERS = 5;

/** A list of reminders: distinct, and not too many. */
const Reminders = z
  .array(Reminder)
  .max(MAX_REMINDERS, { message: `at most ${MAX_REMINDERS} reminders` })
  .superRefine((reminders, ctx) => {
    const seen = new Set<number>();
    reminders.forEach((r, i) => {
      if (seen.has(r.beforeDeadlineSeconds))
        ctx.addIssue({
          code: 'custom',
          path: [i, 'beforeDeadlineSeconds'],
          message: `a second reminder ${r.beforeDeadlineSeconds} seconds before the deadline`,
        });
      seen.add(r.beforeDeadlineSeconds);
    });
  });

/** Issues for reminders that would come at or before the request itself, with `deadlineSeconds`. */
function remindersWithin(
  reminders: Reminder[] | undefined,
  deadlineSeconds: number,
  path: (string | number)[],
  ctx: z.RefinementCtx,
): void {
  reminders?.forEach((r, i) => {
    if (r.beforeDeadlineSeconds >= deadlineSeconds)
      ctx.addIssue({
        code: 'custom',
        path: [...path, i, 'beforeDeadlineSeconds'],
        message: `a reminder ${r.beforeDeadlineSeconds} seconds before a ${deadlineSeconds}-second deadline would come before the request`,
      });
  });
}

/**
 * Issues for standing terms that would let a later call differ where no person may change a call: a
 * bound on a field the policy locks, or standing on a tool whose approvers may not approve at all.
 */
function standingWithin(
  standing: StandingTerms | undefined,
  policy: { decisions: DecisionType[]; editableFields?: string[] | undefined },
  path: (string | number)[],
  ctx: z.RefinementCtx,
): void {
  if (!standing) return;
  if (!policy.decisions.includes('approve') && !policy.decisions.includes('edit'))
    ctx.addIssue({
      code: 'custom',
      path,
      message: 'a standing approval needs approve or edit among the decisions',
    });
  const editable = policy.decisions.includes('edit') ? policy.editableFields : [];
  for (const field of Object.keys(standing.bounds ?? {}))
    if (editable && !editable.includes(field))
      ctx.addIssue({
        code: 'custom',
        path: [...path, 'bounds', field],
        message: `${field} may not be edited: a standing approval never varies what no person may change`,
      });
}

/**
 * An `approve` outcome with its own approvers, quorum, deadline and timeout action: a transfer over
 * $100,000 needs two `cfo` sign-offs within four hours. A field left out falls back to the tool's
 * policy.
 *
 * @example
 * ```ts
 * import type { ApprovalPolicyInput } from 'countersign';
 *
 * const approval: ApprovalPolicyInput = {
 *   approvers: ['finance'],
 *   when: {
 *     if: { arg: 'amount', op: 'gt', value: 100_000 },
 *     then: {
 *       approve: {
 *         name: 'large transfer',
 *         approvers: ['cfo'],
 *         requiredApprovals: 2,
 *         deadlineSeconds: 4 * 3600,
 *       },
 *     },
 *     else: 'approve',
 *   },
 * };
 * ```
 */
export const ApprovalTier = z.strictObject({
  /** Shown in every channel beside the rule that chose the tier ("large transfer"). */
  name: z.string().min(1).max(100).optional(),
  /** Roles whose sign-offs count toward this tier's quorum. */
  approvers: z.array(z.string().min(1)).min(1).optional(),
  requiredApprovals: z.number().int().min(1).optional(),
  deadlineSeconds: z.number().positive().optional(),
  onTimeout: TimeoutAction.optional(),
  /** Reminders before this tier's deadline; the policy's `remind` when absent. */
  remind: Reminders.optional(),
  /** Standing approvals in this tier: its own terms, `false` for none; the policy's when absent. */
  standing: z.union([StandingTerms, z.literal(false)]).optional(),
});
export type ApprovalTier = z.infer<typeof ApprovalTier>;

/**
 * A verdict, a tiered approval, or a condition choosing between two rules.
 *
 * @example
 * ```ts
 * import type { PolicyRule } from 'countersign';
 *
 * // Small refunds run at once, large ones need the support lead, huge ones are refused.
 * const when: PolicyRule = {
 *   if: { arg: 'amount', op: 'lte', value: 100 },
 *   then: 'auto',
 *   else: { if: { arg: 'amount', op: 'gt', value: 5_000 }, then: 'deny', else: 'approve' },
 * };
 * ```
 */
export type PolicyRule =
  | Verdict
  | { approve: ApprovalTier }
  | { if: Condition; then: PolicyRule; else: PolicyRule };
export const PolicyRule: z.ZodType<PolicyRule> = z.lazy(() =>
  z.union([
    Verdict,
    z.strictObject({ approve: ApprovalTier }),
    z.strictObject({ if: Condition, then: PolicyRule, else: PolicyRule }),
  ]),
);

/**
 * How a gated tool call is decided. Every field has a safe default.
 *
 * @example
 * ```ts
 * import { ApprovalPolicy } from 'countersign';
 *
 * const policy = ApprovalPolicy.parse({ approvers: ['support-lead'] });
 * policy.when; // 'approve': every call waits for a human
 * policy.deadlineSeconds; // 86400, then `onTimeout`: { action: 'reject' }
 * ```
 */
export const ApprovalPolicy = z
  .strictObject({
    /** Needs a human unless the rule says otherwise: safe by default. */
    when: PolicyRule.default('approve'),
    decisions: z.array(DecisionType).min(1).default(['approve', 'edit', 'reject']),
    /** Top-level argument names an `edit` may change; all of them when absent. */
    editableFields: z.array(z.string().min(1)).optional(),
    /** Shown to the approver; `{{field}}` is replaced by that argument. */
    description: z.string().optional(),
    /** Roles allowed to decide. */
    approvers: z.array(z.string().min(1)).min(1).default(['admin']),
    /** A quorum of distinct approvers. */
    requiredApprovals: z.number().int().min(1).default(1),
    allowSelfApproval: z.boolean().default(false),
    deadlineSeconds: z.number().positive().default(86_400),
    onTimeout: TimeoutAction.default({ action: 'reject' }),
    /** Hold the tool's output for a human before the model sees it. */
    reviewResult: z.boolean().default(false),
    /** Reminders before the deadline, to those still needed; a tier may name its own. */
    remind: Reminders.optional(),
    /** Lets an approver approve a call and the later ones like it in the run; a tier may name its own. */
    standing: StandingTerms.optional(),
  })
  .superRefine((policy, ctx) => {
    // Each reminder must fall after the request: within the deadline it counts back from.
    remindersWithin(policy.remind, policy.deadlineSeconds, ['remind'], ctx);
    standingWithin(policy.standing, policy, ['standing'], ctx);
    const walk = (rule: PolicyRule, path: (string | number)[]): void => {
      if (typeof rule !== 'object') return;
      if ('approve' in rule) {
        const tier = rule.approve;
        if (tier.standing) standingWithin(tier.standing, policy, [...path, 'approve', 'standing'], ctx);
        const deadline = tier.deadlineSeconds ?? policy.deadlineSeconds;
        if (tier.remind) remindersWithin(tier.remind, deadline, [...path, 'approve', 'remind'], ctx);
        else if (tier.deadlineSeconds !== undefined)
          remindersWithin(policy.remind, deadline, [...path, 'approve', 'deadlineSeconds'], ctx);
        return;
      }
      walk(rule.then, [...path, 'then']);
      walk(rule.else, [...path, 'else']);
    };
    walk(policy.when, ['when']);
  });
export type ApprovalPolicy = z.output<typeof ApprovalPolicy>;
/**
 * An `ApprovalPolicy` as you write it, defaults left out: what `defineTool` takes as `approval`.
 *
 * @example
 * ```ts
 * import type { ApprovalPolicyInput } from 'countersign';
 *
 * const approval: ApprovalPolicyInput = {
 *   approvers: ['dba'],
 *   decisions: ['approve', 'edit', 'reject'],
 *   editableFields: ['sql'],
 *   description: 'Run {{sql}} on production',
 * };
 * ```
 */
export type ApprovalPolicyInput = z.input<typeof ApprovalPolicy>;
