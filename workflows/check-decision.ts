import type {
  ArgChange,
  DecisionSignal,
  FieldError,
  JsonObject,
  JsonValue,
  PlanStep,
  RefusalCode,
  Requirement,
  TimeoutAction,
  ToolSpec,
} from '../protocol/index.js';
import { diffJson } from './arg-diff.js';
import type { ApprovalRecord, DecisionContext } from './approval-record.js';
import type { EditPreview } from './definitions.js';
import { evaluatePolicy, NO_TOTALS, policyOf, requirementOf, type CallTotals } from './evaluate-policy.js';
import {
  addedStepErrors,
  channelRefusal,
  decisionTypeRefusal,
  lockedFieldErrors,
  proposedStepErrors,
  repeatSignoffRefusal,
  roleRefusal,
  selfApprovalRefusal,
  settledRefusal,
  staleRevisionRefusal,
  standingRefusal,
  takesSecret,
  unnamedRevisionRefusal,
  type RuleRefusal,
} from '../protocol/decision-rules.js';
import type { RunningTotals } from './run-totals.js';
import { mergeRequirements } from '../protocol/requirements.js';
import { validateAgainstSchema } from './validate-args.js';

export type Refusal = { ok: false; code: RefusalCode; reason: string; fieldErrors?: FieldError[] };

/** An accepted decision, normalized: the new arguments, plan or result it carries, and the change it makes. */
export type Accepted = {
  ok: true;
  args?: JsonObject;
  plan?: PlanStep[];
  result?: JsonValue;
  /** A secret, as sealed by the API (kind `secret`). */
  sealed?: string;
  diff?: ArgChange[];
  /** What the policy asks of the edited proposal beyond what the approval already required. */
  raised?: Raised;
};

/** The stricter tier an edit moved a proposal into: more requirements, maybe a shorter deadline. */
export interface Raised {
  requirements: Requirement[];
  deadlineSeconds?: number;
  onTimeout?: TimeoutAction;
}

/**
 * Checks one decision against its approval, in the order a person would want the reasons: does it
 * exist and wait, may this person decide it this way, is what they sent valid. Changes nothing.
 */
export function checkDecision(
  record: ApprovalRecord | undefined,
  signal: DecisionSignal,
  context: DecisionContext,
): Refusal | Accepted {
  if (!record) return refuse('unknown_approval', `no approval ${signal.trackingId} in this run`);
  const view = record.view;
  const decision = signal.decision;
  const { id, roles } = signal.approver;
  const broken =
    settledRefusal(view) ??
    linkUsedRefusal(signal.linkNonce, context.usedNonces) ??
    unnamedRevisionRefusal(signal.revision, context.requireRevision) ??
    staleRevisionRefusal(view, signal.revision) ??
    decisionTypeRefusal(view, decision.type) ??
    standingRefusal(view, decision) ??
    channelRefusal(view.kind, signal.channel, signal.linkNonce !== undefined) ??
    roleRefusal(view, roles) ??
    selfApprovalRefusal(view, id, context.requester, decision.type) ??
    repeatSignoffRefusal(view, id, decision.type);
  if (broken) return { ok: false, ...broken };
  switch (decision.type) {
    case 'approve':
    case 'reject':
      return { ok: true };
    case 'respond': {
      // A secret enters the run sealed, or not at all; nothing else carries one.
      if (takesSecret(view.kind)) {
        return decision.sealed !== undefined
          ? { ok: true, sealed: decision.sealed }
          : invalid('a secret reaches a run only sealed, through the Countersign API', [
              { path: '/secret', message: 'required' },
            ]);
      }
      if (decision.result === undefined)
        return invalid('a response must carry its result', [{ path: '/result', message: 'required' }]);
      const schema = view.kind === 'question' ? view.schema : (record.resultSchema ?? {});
      const errors = validateAgainstSchema(schema, decision.result, '/result');
      return errors.length > 0
        ? invalid('the answer does not match the expected schema', errors)
        : { ok: true, result: decision.result };
    }
    case 'edit':
      if (view.kind === 'plan') return checkPlanEdit(record, decision.plan, context, id);
      return checkArgsEdit(record, decision.args, context);
  }
}

/**
 * What an edit would ask for were it sent now, checked as that decision would be but changing
 * nothing: the approval's requirements with those of any stricter tier it moves into, or the
 * refusal it would meet. Who sends it is not judged; for a plan, `editor` adds the steps it adds.
 */
export function previewEdit(
  record: ApprovalRecord | undefined,
  edit: { args?: JsonObject; plan?: PlanStep[] },
  context: DecisionContext,
  editor: string,
): EditPreview {
  if (!record) return refuse('unknown_approval', 'no such approval in this run');
  const broken = settledRefusal(record.view) ?? decisionTypeRefusal(record.view, 'edit');
  if (broken) return { ok: false, ...broken };
  const checked =
    record.view.kind === 'plan'
      ? checkPlanEdit(record, edit.plan, context, editor)
      : checkArgsEdit(record, edit.args, context);
  if (!checked.ok) return checked;
  return {
    ok: true,
    requirements: mergeRequirements(record.view.requirements, checked.raised?.requirements ?? []),
    ...(context.requester !== undefined ? { requester: context.requester } : {}),
    allowSelfApproval: record.view.allowSelfApproval,
  };
}

function checkArgsEdit(
  record: ApprovalRecord,
  args: JsonObject | undefined,
  context: DecisionContext,
): Refusal | Accepted {
  const view = record.view;
  if (args === undefined)
    return invalid('an edit must carry the new arguments', [{ path: '/args', message: 'required' }]);
  if (view.kind === 'result') {
    // An edited output is an answer in the tool's place: it must match the tool's result schema.
    const errors = validateAgainstSchema(record.resultSchema ?? {}, args, '/args');
    return errors.length > 0
      ? invalid('the edited output does not match the tool result schema', errors)
      : { ok: true, args, diff: diffJson(view.result, args) };
  }
  const errors = validateAgainstSchema(view.schema, args, '/args');
  const diff = diffJson(view.args, args);
  errors.push(...lockedFieldErrors(view.editableFields, view.args, args, ['args']));
  if (errors.length > 0) return invalid('the edited arguments are invalid', errors);
  const tool = context.tools.get(view.tool);
  if (!tool) return { ok: true, args, diff };
  const judged = judgeEdit(tool, args, '', context.totals?.of(tool.name, [view.toolCallId]));
  if (!judged.ok) return judged;
  const raised = judged.raised && stricterThan(record, judged.raised);
  return { ok: true, args, diff, ...(raised ? { raised } : {}) };
}

/** What of `raised` the approval does not already ask for; undefined when nothing. */
function stricterThan(record: ApprovalRecord, raised: Raised): Raised | undefined {
  const view = record.view;
  const current = view.requirements;
  const requirements = mergeRequirements(current, raised.requirements).slice(current.length);
  const earlier =
    raised.deadlineSeconds !== undefined &&
    Date.now() + raised.deadlineSeconds * 1000 < Date.parse(view.deadline);
  const rejects = raised.onTimeout?.action === 'reject' && view.onTimeout.action !== 'reject';
  if (requirements.length === 0 && !earlier && !rejects) return undefined;
  return {
    requirements,
    ...(earlier ? { deadlineSeconds: raised.deadlineSeconds } : {}),
    ...(rejects ? { onTimeout: raised.onTimeout } : {}),
  };
}

/**
 * The policy on edited arguments: an edit can never produce a call the policy would deny, nor one
 * that needs more or other approvers than the approval already asks for without asking for them.
 */
function judgeEdit(
  tool: ToolSpec,
  args: JsonObject,
  where: string,
  totals: CallTotals = NO_TOTALS,
  proposer?: string,
): { ok: true; raised?: Raised } | Refusal {
  const decision = evaluatePolicy(tool, args, totals);
  if (decision.verdict === 'deny') {
    return refuse('policy_denied', `the policy refuses this edit${where}: ${decision.because} is denied`);
  }
  if (decision.verdict === 'auto') return { ok: true };
  const requirement = requirementOf(decision);
  // Whoever proposed a call signs it only where its policy lets a requester approve their own, and
  // never where the policy locks fields: a reviewer who adds a step chose them all.
  const policy = policyOf(tool);
  const ownSignoff = policy.allowSelfApproval && locksNoField(tool, policy.editableFields);
  const notBy = proposer !== undefined && !ownSignoff ? { notBy: [proposer] } : {};
  return {
    ok: true,
    raised: {
      requirements: [{ ...requirement, ...notBy, reason: `${requirement.reason}${where}` }],
      deadlineSeconds: decision.tier.deadlineSeconds,
      onTimeout: decision.tier.onTimeout,
    },
  };
}

/**
 * A reworked plan. Proposed steps follow their own tool's edit rules, as single calls would. A step
 * the reviewer adds is their own proposal: only of a tool whose policy allows edits (cutting a step
 * and adding it back changed is an edit), and judged in full by that policy, its requester being the
 * person who added it. Steps are judged in the plan's order, each on top of the run's totals and the
 * steps before it, so splitting one call into many escapes no cumulative limit.
 */
function checkPlanEdit(
  record: ApprovalRecord,
  plan: PlanStep[] | undefined,
  context: DecisionContext,
  reviewer: string,
): Refusal | Accepted {
  if (plan === undefined)
    return invalid('a plan edit must carry the new plan', [{ path: '/plan', message: 'required' }]);
  const proposed = new Map((record.original.plan ?? []).map((step) => [step.toolCallId, step]));
  const addedBefore = (record.view.plan ?? []).filter((step) => step.toolCallId === undefined);
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  const steps: PlanStep[] = [];
  const tools: (ToolSpec | undefined)[] = plan.map((sent, i) => {
    // Who added a step is the run's record, never the sender's word.
    const step: PlanStep = {
      tool: sent.tool,
      args: sent.args,
      ...(sent.toolCallId !== undefined ? { toolCallId: sent.toolCallId } : {}),
    };
    const tool = context.tools.get(step.tool);
    if (!tool) {
      errors.push({ path: `/plan/${i}/tool`, message: `${step.tool} is not a tool of this agent` });
      return undefined;
    }
    errors.push(...validateAgainstSchema(tool.parameters, step.args, `/plan/${i}/args`));
    if (step.toolCallId === undefined) {
      errors.push(...addedStepErrors(step, tool, i));
      steps.push({ ...step, addedBy: takeAdder(addedBefore, step) ?? reviewer });
      return tool;
    }
    steps.push(step);
    const original = proposed.get(step.toolCallId);
    if (original?.tool !== step.tool) {
      errors.push({ path: `/plan/${i}/toolCallId`, message: 'does not name a proposed call of this tool' });
    } else if (seen.has(step.toolCallId)) {
      errors.push({ path: `/plan/${i}/toolCallId`, message: 'a proposed call may appear once' });
    } else {
      errors.push(...proposedStepErrors(step, tool, original.args, i));
    }
    seen.add(step.toolCallId);
    return tool;
  });
  if (errors.length > 0) return invalid('the edited plan is invalid', errors);
  // The plan's own proposed calls are left out of the run's totals: the plan as edited replaces them.
  const planIds = [...proposed.keys()].filter((id): id is string => id !== undefined);
  const running = new Map<string, RunningTotals | undefined>();
  let raised: Raised = { requirements: [] };
  for (const [i, step] of steps.entries()) {
    const tool = tools[i]!;
    if (!running.has(tool.name)) running.set(tool.name, context.totals?.of(tool.name, planIds));
    const totals = running.get(tool.name);
    const by = step.addedBy !== undefined ? `, added by ${step.addedBy}` : '';
    const judged = judgeEdit(
      tool,
      step.args,
      ` (plan step ${i + 1}, ${step.tool}${by})`,
      totals,
      step.addedBy,
    );
    running.set(tool.name, totals?.plus(step.args));
    if (!judged.ok) return judged;
    if (judged.raised) {
      raised = {
        requirements: mergeRequirements(raised.requirements, judged.raised.requirements),
        deadlineSeconds: Math.min(
          raised.deadlineSeconds ?? Infinity,
          judged.raised.deadlineSeconds ?? Infinity,
        ),
        ...(judged.raised.onTimeout?.action === 'reject' || raised.onTimeout?.action === 'reject'
          ? { onTimeout: { action: 'reject' as const } }
          : {}),
      };
    }
  }
  if (raised.deadlineSeconds === Infinity) delete raised.deadlineSeconds;
  const stricter = stricterThan(record, raised);
  return {
    ok: true,
    plan: steps,
    diff: diffJson(record.view.plan, steps),
    ...(stricter ? { raised: stricter } : {}),
  };
}

/** Whether `editableFields` leaves every top-level argument of the tool editable (or is absent). */
function locksNoField(tool: ToolSpec, editable: string[] | undefined): boolean {
  if (editable === undefined) return true;
  const properties = (tool.parameters as { properties?: Record<string, unknown> }).properties ?? {};
  return Object.keys(properties).every((field) => editable.includes(field));
}

/**
 * Who added a step that was already in the plan unchanged (a later edit keeps it): the first
 * remaining step of the same tool and arguments; undefined for a step new in this edit.
 */
function takeAdder(addedBefore: PlanStep[], step: PlanStep): string | undefined {
  const i = addedBefore.findIndex(
    (before) => before.tool === step.tool && JSON.stringify(before.args) === JSON.stringify(step.args),
  );
  if (i < 0) return undefined;
  return addedBefore.splice(i, 1)[0]!.addedBy;
}

/** A link is single-use: the run remembers the nonces it has taken, so only it can tell. */
function linkUsedRefusal(nonce: string | undefined, used: ReadonlySet<string>): RuleRefusal | undefined {
  if (nonce === undefined || !used.has(nonce)) return undefined;
  return { code: 'link_used', reason: 'this link has already been used' };
}

function refuse(code: RefusalCode, reason: string): Refusal {
  return { ok: false, code, reason };
}

function invalid(reason: string, fieldErrors: FieldError[]): Refusal {
  return { ok: false, code: 'invalid_arguments', reason, fieldErrors };
}
