import type {
  ArgChange,
  DecisionSignal,
  FieldError,
  JsonObject,
  JsonValue,
  PlanStep,
  RefusalCode,
} from '../protocol/index.js';
import { diffJson, topLevelField } from './arg-diff.js';
import type { ApprovalRecord, DecisionContext } from './approval-record.js';
import { validateAgainstSchema } from './validate-args.js';

export type Refusal = { ok: false; code: RefusalCode; reason: string; fieldErrors?: FieldError[] };

/** An accepted decision, normalized: the new arguments, plan or result it carries, and the change it makes. */
export type Accepted = {
  ok: true;
  args?: JsonObject;
  plan?: PlanStep[];
  result?: JsonValue;
  diff?: ArgChange[];
};

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
  if (view.status !== 'pending') return refuse('already_settled', `this approval is already ${view.status}`);
  if (signal.linkNonce !== undefined && context.usedNonces.has(signal.linkNonce)) {
    return refuse('link_used', 'this link has already been used');
  }
  const decision = signal.decision;
  if (!view.allowedDecisions.includes(decision.type)) {
    return refuse(
      'decision_not_allowed',
      `${decision.type} is not allowed here; allowed: ${view.allowedDecisions.join(', ')}`,
    );
  }
  if (!signal.approver.roles.some((role) => view.approvers.includes(role))) {
    return refuse('role_not_allowed', `deciding this needs one of the roles: ${view.approvers.join(', ')}`);
  }
  // Refusing one's own request is always fine; approving it needs the policy's leave. Questions are
  // exempt: the requester is often the one who knows the answer.
  const isSelf = context.requester !== undefined && signal.approver.id === context.requester;
  if (isSelf && !view.allowSelfApproval && view.kind !== 'question' && decision.type !== 'reject') {
    return refuse('self_approval', 'the requester of this run may not approve it');
  }
  if (
    (decision.type === 'approve' || decision.type === 'edit') &&
    view.approvals.some((signoff) => signoff.approver === signal.approver.id)
  ) {
    return refuse(
      'already_approved_by_you',
      'you have already approved this; the quorum needs distinct approvers',
    );
  }
  switch (decision.type) {
    case 'approve':
    case 'reject':
      return { ok: true };
    case 'respond': {
      const schema = view.kind === 'question' ? view.schema : (record.resultSchema ?? {});
      const errors = validateAgainstSchema(schema, decision.result, '/result');
      return errors.length > 0
        ? invalid('the answer does not match the expected schema', errors)
        : { ok: true, result: decision.result };
    }
    case 'edit':
      if (view.kind === 'plan') return checkPlanEdit(record, decision.plan, context);
      return checkArgsEdit(record, decision.args);
  }
}

function checkArgsEdit(record: ApprovalRecord, args: JsonObject | undefined): Refusal | Accepted {
  const view = record.view;
  if (args === undefined)
    return invalid('an edit must carry the new arguments', [{ path: '/args', message: 'required' }]);
  if (view.kind === 'result') return { ok: true, args, diff: diffJson(view.result, args) };
  const errors = validateAgainstSchema(view.schema, args, '/args');
  const diff = diffJson(view.args, args);
  const editable = view.editableFields;
  if (editable) {
    const locked = [...new Set(diff.map((change) => topLevelField(change.path)))].filter(
      (f) => !editable.includes(f),
    );
    for (const field of locked)
      errors.push({ path: `/args/${field}`, message: `${field} may not be edited` });
  }
  return errors.length > 0 ? invalid('the edited arguments are invalid', errors) : { ok: true, args, diff };
}

function checkPlanEdit(
  record: ApprovalRecord,
  plan: PlanStep[] | undefined,
  context: DecisionContext,
): Refusal | Accepted {
  if (plan === undefined)
    return invalid('a plan edit must carry the new plan', [{ path: '/plan', message: 'required' }]);
  const proposed = new Map((record.original.plan ?? []).map((step) => [step.toolCallId, step.tool]));
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  plan.forEach((step, i) => {
    const tool = context.tools.get(step.tool);
    if (!tool) {
      errors.push({ path: `/plan/${i}/tool`, message: `${step.tool} is not a tool of this agent` });
      return;
    }
    if (step.toolCallId !== undefined) {
      if (proposed.get(step.toolCallId) !== step.tool) {
        errors.push({ path: `/plan/${i}/toolCallId`, message: 'does not name a proposed call of this tool' });
      } else if (seen.has(step.toolCallId)) {
        errors.push({ path: `/plan/${i}/toolCallId`, message: 'a proposed call may appear once' });
      }
      seen.add(step.toolCallId);
    }
    errors.push(...validateAgainstSchema(tool.parameters, step.args, `/plan/${i}/args`));
  });
  if (errors.length > 0) return invalid('the edited plan is invalid', errors);
  return { ok: true, plan, diff: diffJson(record.view.plan, plan) };
}

function refuse(code: RefusalCode, reason: string): Refusal {
  return { ok: false, code, reason };
}

function invalid(reason: string, fieldErrors: FieldError[]): Refusal {
  return { ok: false, code: 'invalid_arguments', reason, fieldErrors };
}
