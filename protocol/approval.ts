import { z } from 'zod';
import { JsonObject, JsonSchema, JsonValue } from './json.js';
import { DecisionType, TimeoutAction } from './policy.js';
import { Channel, PlanStep } from './decision.js';
import { ApprovalStatus } from './status.js';
import { SecretRequest } from './secret.js';
import { StandingTerms } from './standing.js';
import { SubAgentChain } from './sub-agents.js';

/**
 * What is being decided: a proposed call, a plan of calls, a tool's result held for review, a
 * question the model put to a human through `ask_human`, or the outcome of a call nobody knows (an
 * attempt of a tool that does not dedupe ended without saying how: `respond` = it happened, with
 * its result; `approve` = it did not, run it again; `reject` = it failed), or a secret a tool needs
 * (`respond` with `secret`, which the API seals before the run sees it; `reject` = nobody supplies it).
 *
 * @example
 * ```ts
 * import { listPendingApprovals } from 'countersign/client';
 *
 * for (const approval of await listPendingApprovals(client))
 *   if (approval.kind === 'question') console.log(`The agent asks: ${approval.question}`);
 * ```
 */
export const ApprovalKind = z.enum(['call', 'plan', 'result', 'question', 'outcome', 'secret']);
export type ApprovalKind = z.infer<typeof ApprovalKind>;

/**
 * One argument that a human changed: `path` is a JSON pointer into the arguments.
 *
 * @example
 * ```ts
 * for (const change of approval.outcome?.diff ?? [])
 *   console.log(`${change.path}: ${JSON.stringify(change.before)} -> ${JSON.stringify(change.after)}`);
 * ```
 */
export const ArgChange = z.strictObject({
  path: z.string(),
  before: JsonValue.optional(),
  after: JsonValue.optional(),
});
export type ArgChange = z.infer<typeof ArgChange>;

/**
 * One person's approval; `roles` are those they held when they gave it, which decide where it counts.
 *
 * @example
 * ```ts
 * for (const signoff of approval.approvals)
 *   console.log(`${signoff.approver} (${signoff.roles.join(', ')}) signed revision ${signoff.revision}`);
 * ```
 */
export const Signoff = z.strictObject({
  approver: z.string(),
  roles: z.array(z.string()),
  /** The revision of the proposal this sign-off was given on: it covers exactly that one. */
  revision: z.number().int().min(1),
  channel: Channel,
  at: z.string(),
  /** The signer asked for a standing approval: this call and the later ones like it in the run. */
  standing: z.literal(true).optional(),
});
export type Signoff = z.infer<typeof Signoff>;

/**
 * One condition an approval must meet before it is approved: `count` distinct sign-offs from
 * people holding one of `roles`. An approval is approved when every requirement is met; a sign-off
 * counts toward each requirement whose roles its approver holds.
 *
 * @example
 * ```ts
 * for (const requirement of approval.requirements)
 *   console.log(`${requirement.count} of ${requirement.roles.join(' or ')}, because ${requirement.reason}`);
 * ```
 */
export const Requirement = z.strictObject({
  roles: z.array(z.string()).min(1),
  count: z.number().int().min(1),
  /** Why it is asked: the policy rule that applied, in words ("transfer: amount over $100,000"). */
  reason: z.string(),
  /** The tier that rule chose, when it names one. */
  tier: z.string().optional(),
  /**
   * People whose sign-offs do not count toward it: they proposed what it covers (a step they added
   * to a plan), and its tool's policy does not let a requester approve their own call.
   */
  notBy: z.array(z.string()).optional(),
});
export type Requirement = z.infer<typeof Requirement>;

/**
 * How an approval ended: who settled it, when, and what they decided.
 *
 * @example
 * ```ts
 * const outcome = approval.outcome;
 * if (outcome?.status === 'edited') console.log(`${outcome.by.join(', ')} changed them to`, outcome.args);
 * ```
 */
export const ApprovalOutcome = z.strictObject({
  status: ApprovalStatus,
  by: z.array(z.string()),
  at: z.string(),
  args: JsonObject.optional(),
  diff: z.array(ArgChange).optional(),
  plan: z.array(PlanStep).optional(),
  message: z.string().optional(),
  result: JsonValue.optional(),
});
export type ApprovalOutcome = z.infer<typeof ApprovalOutcome>;

/**
 * What is known of an attempt whose outcome is unknown: when and where it started, the last step
 * the tool reported while it ran, and how it ended.
 *
 * @example
 * ```ts
 * if (approval.kind === 'outcome' && approval.attempt)
 *   console.log(`${approval.tool} started ${approval.attempt.startedAt} on ${approval.attempt.worker}; last: ${approval.attempt.progress?.step ?? 'nothing reported'}`);
 * ```
 */
export const UnknownAttempt = z.strictObject({
  /** Which attempt of the call this was (1 for the first). */
  attempt: z.number().int().min(1),
  startedAt: z.string().optional(),
  /** The worker identity that ran it. */
  worker: z.string().optional(),
  /** The last step the tool reported (`context.progress`) that reached the server. */
  progress: z.strictObject({ step: z.string(), at: z.string() }).optional(),
  /** How the attempt ended: the worker stopped heartbeating, its time ran out, it was cut off... */
  reason: z.string(),
});
export type UnknownAttempt = z.infer<typeof UnknownAttempt>;

/**
 * An approval as the inbox, the API, the CLI and the email show it: one definition for all.
 *
 * @example
 * ```ts
 * import { ApprovalView } from 'countersign';
 *
 * // In your receiver of the notifier's webhook (`{ type: 'approval.requested', approval, inboxUrl }`):
 * const approval = ApprovalView.parse(body.approval);
 * console.log(`${approval.description}: ${approval.approvers.join(' or ')} by ${approval.deadline}`);
 * ```
 */
export const ApprovalView = z.strictObject({
  trackingId: z.string(),
  runId: z.string(),
  agent: z.string(),
  kind: ApprovalKind,
  tool: z.string(),
  toolCallId: z.string(),
  /** The arguments as proposed. */
  args: JsonObject,
  plan: z.array(PlanStep).optional(),
  /** The tool's output under review (kind `result`). */
  result: JsonValue.optional(),
  question: z.string().optional(),
  /** The attempt whose outcome is unknown (kind `outcome`); `args` are the arguments it ran with. */
  attempt: UnknownAttempt.optional(),
  /** The secret asked for (kind `secret`): a person supplies it; nobody, the model included, reads it back. */
  secret: SecretRequest.optional(),
  description: z.string(),
  /** JSON Schema for `edit` arguments (kind `call`) or for the `respond` result. */
  schema: JsonSchema,
  allowedDecisions: z.array(DecisionType),
  editableFields: z.array(z.string()).optional(),
  /** Present when it may be approved with `standing: true`: the terms its policy offers (kind `call`). */
  standing: StandingTerms.optional(),
  /** Every role that may decide: the union of the requirements' roles. */
  approvers: z.array(z.string()),
  /** The largest quorum among the requirements (each has its own count). */
  requiredApprovals: z.number().int(),
  /** What must be met before this is approved; an edit may add to it, never take from it. */
  requirements: z.array(Requirement).min(1),
  /**
   * Changes whenever what an approver must judge changes (an edit, a stricter tier, an
   * escalation); a decision names the revision its author was shown and is refused on any other.
   */
  revision: z.number().int().min(1),
  approvals: z.array(Signoff),
  requester: z.string().optional(),
  allowSelfApproval: z.boolean(),
  requestedAt: z.string(),
  deadline: z.string(),
  onTimeout: TimeoutAction,
  escalated: z.boolean(),
  status: ApprovalStatus,
  outcome: ApprovalOutcome.optional(),
  /** Set when a sub-agent asks: its root run, the run that called it, and the agents down to it. */
  chain: SubAgentChain.optional(),
});
export type ApprovalView = z.infer<typeof ApprovalView>;

/**
 * The requestApproval activity's answer: it returns at once, the human answers later by signal.
 *
 * @example
 * ```ts
 * import { ApprovalTicket } from 'countersign';
 *
 * const ticket = ApprovalTicket.parse({ status: 'pending', trackingId: 'run-42.1' });
 * ```
 */
export const ApprovalTicket = z.strictObject({ status: z.literal('pending'), trackingId: z.string() });
export type ApprovalTicket = z.infer<typeof ApprovalTicket>;
