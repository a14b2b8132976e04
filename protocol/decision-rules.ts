/**
 * The rules a decision must pass, written once: the API checks them before it signals (to answer at
 * once, with a status and field errors), and the workflow checks them again when the signal arrives
 * (the check that counts, recorded in the audit trail). Each side keeps its own order and its own
 * lookups (the API reads the approval from the run, the workflow holds it); the rules are these.
 *
 * Pure and deterministic, and free of zod at run time, so the workflow bundle imports it.
 */
import { DEFAULT_POLICY } from './generated/workflow-schemas.js';
import type { ApprovalKind, ApprovalView } from './approval.js';
import type { Channel, FieldError, PlanStep, RefusalCode } from './decision.js';
import type { JsonObject, JsonValue } from './json.js';
import { toPointer } from './json-pointer.js';
import type { ApprovalPolicy, DecisionType, PolicyRule, TimeoutAction } from './policy.js';

/** Why a rule refuses a decision: the code every channel answers with, and the reason the run records. */
export interface RuleRefusal {
  code: RefusalCode;
  reason: string;
}

/** What the rules read of a tool: whether it is safe, and its policy. */
export interface RuledTool {
  safe?: boolean;
  approval?: Pick<ApprovalPolicy, 'decisions' | 'editableFields'>;
}

/** A decision is taken only while its approval waits for one. */
export function settledRefusal(view: Pick<ApprovalView, 'status'>): RuleRefusal | undefined {
  if (view.status === 'pending') return undefined;
  return { code: 'already_settled', reason: `this approval is already ${view.status}` };
}

/**
 * A countersignature covers exactly what its signer saw, so a decision names the revision it was
 * made on (`required`: runs recorded before revisions took decisions without one).
 */
export function unnamedRevisionRefusal(
  revision: number | undefined,
  required: boolean,
): RuleRefusal | undefined {
  if (revision !== undefined || !required) return undefined;
  return {
    code: 'revision_required',
    reason: 'a decision must name the revision of the proposal it was made on',
  };
}

/** A decision made on another revision than the proposal's current one changes nothing. */
export function staleRevisionRefusal(
  view: Pick<ApprovalView, 'revision'>,
  revision: number | undefined,
): RuleRefusal | undefined {
  if (revision === undefined || revision === view.revision) return undefined;
  return {
    code: 'stale_revision',
    reason: `the proposal changed since you saw it (you saw revision ${revision}; it is now revision ${view.revision})`,
  };
}

/** Only the decision types the approval's policy allows. */
export function decisionTypeRefusal(
  view: Pick<ApprovalView, 'allowedDecisions'>,
  type: DecisionType,
): RuleRefusal | undefined {
  if (view.allowedDecisions.includes(type)) return undefined;
  return {
    code: 'decision_not_allowed',
    reason: `${type} is not allowed here; allowed: ${view.allowedDecisions.join(', ')}`,
  };
}

/**
 * A secret is supplied, or refused, only where a person can type it unseen (the inbox, the CLI, the
 * API): never through an email link or Slack, whose messages have no buttons for one.
 */
export function channelRefusal(
  kind: ApprovalKind,
  channel: Channel,
  viaLink: boolean,
): RuleRefusal | undefined {
  if (kind !== 'secret' || (channel !== 'email' && channel !== 'slack' && !viaLink)) return undefined;
  return {
    code: 'decision_not_allowed',
    reason: `a secret is never supplied, nor refused, through ${channel === 'slack' ? 'Slack' : 'an email link'}: open it in the inbox`,
  };
}

/**
 * A standing approval ("this call and the rest like it for this run") only where the call's policy
 * offers one: a call, never a plan, a result, a question, an outcome or a secret.
 */
export function standingRefusal(
  view: Pick<ApprovalView, 'kind' | 'tool' | 'standing'>,
  decision: { type: DecisionType; standing?: boolean },
): RuleRefusal | undefined {
  if (decision.standing !== true || (view.kind === 'call' && view.standing)) return undefined;
  return {
    code: 'standing_not_allowed',
    reason:
      view.kind === 'call'
        ? `${view.tool}'s policy allows no standing approval: approve this call alone`
        : `only a call can be approved with the rest like it, not a ${view.kind}`,
  };
}

/** Who decides holds a role the approval asks for. */
export function roleRefusal(
  view: Pick<ApprovalView, 'approvers'>,
  roles: readonly string[],
): RuleRefusal | undefined {
  if (roles.some((role) => view.approvers.includes(role))) return undefined;
  return {
    code: 'role_not_allowed',
    reason: `deciding this needs one of the roles: ${view.approvers.join(', ')}`,
  };
}

/**
 * Refusing one's own request is always fine; approving it needs the policy's leave. Questions and
 * secrets are exempt: the requester is often the one who knows the answer.
 */
export function selfApprovalRefusal(
  view: Pick<ApprovalView, 'kind' | 'allowSelfApproval'>,
  approver: string,
  requester: string | undefined,
  type: DecisionType,
): RuleRefusal | undefined {
  const asked = view.kind === 'question' || view.kind === 'secret';
  if (
    requester === undefined ||
    approver !== requester ||
    view.allowSelfApproval ||
    asked ||
    type === 'reject'
  )
    return undefined;
  return { code: 'self_approval', reason: 'the requester of this run may not approve it' };
}

/** A quorum needs distinct approvers: one person signs a proposal once (an edit signs the new one). */
export function repeatSignoffRefusal(
  view: Pick<ApprovalView, 'approvals'>,
  approver: string,
  type: DecisionType,
): RuleRefusal | undefined {
  if (type !== 'approve' && type !== 'edit') return undefined;
  if (!view.approvals.some((signoff) => signoff.approver === approver)) return undefined;
  return {
    code: 'already_approved_by_you',
    reason: 'you have already approved this; the quorum needs distinct approvers',
  };
}

/** Whether a `respond` to this kind of approval carries a secret (and nothing else may carry one). */
export function takesSecret(kind: ApprovalKind): boolean {
  return kind === 'secret';
}

/**
 * The fields an edit changed that the policy does not let a human change (`editable` absent: every
 * field may change). `at` is the path of the arguments: `['args']`, `['plan', 0, 'args']`.
 */
export function lockedFieldErrors(
  editable: readonly string[] | undefined,
  before: JsonObject,
  after: JsonObject,
  at: readonly PropertyKey[],
): FieldError[] {
  if (!editable) return [];
  return [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .sort()
    .filter((field) => !editable.includes(field) && !sameJson(before[field], after[field]))
    .map((field) => ({ path: toPointer([...at, field]), message: `${field} may not be edited` }));
}

/**
 * The locked fields an edit left out. An edit sends the whole arguments, so a field left out is not
 * "unchanged" but removed: a locked field changed, said in the words that tell the sender why.
 */
export function omittedLockedFields(
  editable: readonly string[] | undefined,
  before: JsonObject,
  after: JsonObject,
): string[] {
  if (!editable) return [];
  return Object.keys(before).filter((field) => !editable.includes(field) && !(field in after));
}

/**
 * Whether a reviewer may add a call of this tool to a plan: a safe tool, or one whose policy allows
 * edits. Cutting a proposed step and adding it back changed is an edit, so a tool its policy only
 * lets people approve or reject is never added; the API and the workflow both refuse it.
 *
 * @example
 * ```ts
 * import { mayAddToPlan } from './decision-rules.js';
 *
 * mayAddToPlan({ approval: { decisions: ['approve', 'reject'] } }); // false
 * ```
 */
export function mayAddToPlan(tool: { safe?: boolean; approval?: { decisions?: string[] } }): boolean {
  if (tool.safe) return true;
  return (tool.approval?.decisions ?? DEFAULT_POLICY.decisions).includes('edit');
}

/** The step at `index` of an edited plan, added by the reviewer, as its tool's policy allows it or not. */
export function addedStepErrors(step: PlanStep, tool: RuledTool, index: number): FieldError[] {
  if (step.toolCallId !== undefined || mayAddToPlan(tool)) return [];
  return [
    {
      path: toPointer(['plan', index, 'tool']),
      message: `${step.tool} calls may not be added to a plan: its policy allows no edit`,
    },
  ];
}

/**
 * A proposed step of an edited plan, changed from the model's `before` as single calls may be: only
 * where its policy allows edits, and only in the fields it leaves editable.
 */
export function proposedStepErrors(
  step: PlanStep,
  tool: RuledTool,
  before: JsonObject,
  index: number,
): FieldError[] {
  if (tool.safe) return [];
  const policy = tool.approval ?? DEFAULT_POLICY;
  if (!policy.decisions.includes('edit') && !sameJson(before, step.args))
    return [{ path: toPointer(['plan', index, 'args']), message: `${step.tool} calls may not be edited` }];
  return lockedFieldErrors(policy.editableFields, before, step.args, ['plan', index, 'args']);
}

/** Every role a policy may ask to decide: each `approve` outcome's roles and its escalation's. */
export function policyRoles(policy: Pick<ApprovalPolicy, 'when' | 'approvers' | 'onTimeout'>): Set<string> {
  const roles = new Set<string>();
  const escalation = (action: TimeoutAction) => {
    if (action.action === 'escalate') for (const role of action.approvers) roles.add(role);
  };
  const walk = (rule: PolicyRule) => {
    if (rule === 'approve') {
      for (const role of policy.approvers) roles.add(role);
      escalation(policy.onTimeout);
    } else if (typeof rule === 'object' && 'approve' in rule) {
      for (const role of rule.approve.approvers ?? policy.approvers) roles.add(role);
      escalation(rule.approve.onTimeout ?? policy.onTimeout);
    } else if (typeof rule === 'object') {
      walk(rule.then);
      walk(rule.else);
    }
  };
  walk(policy.when);
  return roles;
}

/**
 * Every role that may decide one of an agent's calls, its plans or its questions: its gated tools'
 * policies (a tool with none has the default one), and the default policy's roles for `ask_human`.
 */
export function agentRoles(agent: {
  tools: readonly { safe?: boolean; approval?: ApprovalPolicy }[];
  askHuman?: boolean;
}): Set<string> {
  const roles = new Set<string>();
  const add = (policy: ApprovalPolicy) => policyRoles(policy).forEach((role) => roles.add(role));
  for (const tool of agent.tools) if (!tool.safe) add(tool.approval ?? DEFAULT_POLICY);
  if (agent.askHuman) add(DEFAULT_POLICY);
  return roles;
}

/** Equal as JSON, whatever the order of object keys. */
export function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => sameJson(item, b[i]));
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((key) => sameJson(a[key], b[key]));
}
