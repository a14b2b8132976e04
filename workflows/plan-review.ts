import type { ApprovalPolicy, PlanStep, Requirement, ToolCall } from '../protocol/index.js';
import { awaitHumanDecision } from './approval-gate.js';
import { diffJson } from './arg-diff.js';
import { mergeRequirements } from '../protocol/requirements.js';
import { policyOf, requirementOf, verdictOf, type ResolvedTier } from './evaluate-policy.js';
import { deniedCall } from './gated-call.js';
import type { ParsedCall } from './parse-call.js';
import type { RunContext } from './run-context.js';
import { runCall } from './run-call.js';
import {
  addedStepMessage,
  cutFromPlanMessage,
  editedCallMessage,
  expiredMessage,
  movedStepMessage,
  planRejectedMessage,
} from './tool-messages.js';

type ToolCallItem = Extract<ParsedCall, { kind: 'tool' }>;

/** The tool messages of a reviewed turn, and the calls a human added (for the assistant message). */
export interface PlanResult {
  messages: { toolCallId: string; content: string }[];
  addedCalls: ToolCall[];
}

/**
 * Plan review: all calls of one turn go to a human as one plan, which they may approve, reorder,
 * cut, or extend with calls to registered tools. Nothing runs before the decision; then the steps
 * run in the approved order.
 */
export async function reviewPlan(ctx: RunContext, items: ToolCallItem[]): Promise<PlanResult> {
  const plan: PlanStep[] = items.map((item) => ({
    tool: item.tool.name,
    args: item.args,
    toolCallId: item.call.id,
  }));
  // Each gated call brings its own requirement: the plan is approved once every one of them is met.
  const gated = items.flatMap((item) =>
    item.policy.verdict === 'approve' ? [{ tool: item.tool, decision: item.policy }] : [],
  );
  const policy = mergePolicies(
    gated.map(({ tool }) => policyOf(tool)),
    gated.map(({ decision }) => decision.tier),
  );
  const requirements = gated.reduce<Requirement[]>(
    (all, { decision }) => mergeRequirements(all, [requirementOf(decision)]),
    [],
  );
  const view = await awaitHumanDecision(ctx.book, {
    kind: 'plan',
    tool: 'plan',
    toolCallId: items[0]!.call.id,
    args: {},
    plan,
    description: describePlan(plan),
    describe: (edited) => describePlan(edited.plan ?? plan),
    schema: {},
    allowedDecisions: ['approve', 'edit', 'reject'],
    requirements,
    allowSelfApproval: policy.allowSelfApproval,
    deadlineSeconds: policy.deadlineSeconds,
    onTimeout: policy.onTimeout,
  });
  const outcome = view.outcome;
  const result: PlanResult = { messages: [], addedCalls: [] };
  if (view.status !== 'approved' && view.status !== 'edited') {
    for (const item of items) {
      ctx.totals.drop(item.call.id);
      const content =
        view.status === 'rejected'
          ? planRejectedMessage(item.tool.name, outcome?.by ?? [], outcome?.message)
          : expiredMessage(item.tool.name);
      result.messages.push({ toolCallId: item.call.id, content });
    }
    return result;
  }

  const approvedBy = outcome?.by ?? [];
  const finalPlan = outcome?.plan ?? plan;
  const kept = new Set(finalPlan.map((step) => step.toolCallId));
  // The plan as approved is what counts toward the run's totals: cut steps no longer do, added ones
  // do from now on, under ids of their own.
  for (const item of items) if (!kept.has(item.call.id)) ctx.totals.drop(item.call.id);
  const ids = finalPlan.map((step) => step.toolCallId ?? ctx.nextAddedCallId());
  finalPlan.forEach((step, i) => ctx.totals.count(ids[i]!, ctx.tools.get(step.tool)!, step.args));
  const proposedOrder = items.map((item) => item.call.id).filter((id) => kept.has(id));
  const approvedOrder = finalPlan.flatMap((step) => (step.toolCallId === undefined ? [] : [step.toolCallId]));
  const reordered = proposedOrder.some((id, i) => approvedOrder[i] !== id);
  // Steps run one after another: a reordered plan is an order.
  for (const [i, step] of finalPlan.entries()) {
    const tool = ctx.tools.get(step.tool)!;
    const added = step.toolCallId === undefined;
    const toolCallId = ids[i]!;
    if (added) {
      result.addedCalls.push({
        id: toolCallId,
        type: 'function',
        function: { name: step.tool, arguments: JSON.stringify(step.args) },
      });
    }
    // A human approving a plan does not override a policy that refuses a call outright; a step is
    // judged on the run's totals with the steps before it, as the plan's edit was.
    const denied = verdictOf(tool, step.args, ctx.totals.of(step.tool, ids.slice(i))) === 'deny';
    if (denied) ctx.totals.drop(toolCallId);
    const content = denied
      ? deniedCall(ctx, tool, toolCallId)
      : await runCall(ctx, tool, toolCallId, step.args, { trackingId: view.trackingId, approvedBy });
    result.messages.push({
      toolCallId,
      content: added
        ? addedStepMessage(content)
        : changedStepMessage(items, step, i, reordered, approvedBy, content),
    });
  }
  for (const item of items) {
    if (!kept.has(item.call.id)) {
      result.messages.push({
        toolCallId: item.call.id,
        content: cutFromPlanMessage(item.tool.name, outcome?.message),
      });
    }
  }
  return result;
}

/**
 * A proposed step's message, with what a person changed of it before it ran: its arguments, and its
 * place when they reordered the plan (a step that moved only because another was cut or added did not).
 */
function changedStepMessage(
  items: ToolCallItem[],
  step: PlanStep,
  index: number,
  reordered: boolean,
  by: string[],
  content: string,
): string {
  const proposed = items.findIndex((item) => item.call.id === step.toolCallId);
  const edited = editedCallMessage(by, diffJson(items[proposed]!.args, step.args), content);
  return reordered && proposed !== index ? movedStepMessage(proposed + 1, index + 1, edited) : edited;
}

/** One plan, one deadline: the earliest of its calls' tiers; self-approval only where all allow it. */
function mergePolicies(
  policies: ApprovalPolicy[],
  tiers: ResolvedTier[],
): Pick<ApprovalPolicy, 'allowSelfApproval' | 'deadlineSeconds' | 'onTimeout'> {
  return {
    allowSelfApproval: policies.every((p) => p.allowSelfApproval),
    deadlineSeconds: Math.min(...tiers.map((t) => t.deadlineSeconds)),
    onTimeout: tiers.find((t) => t.onTimeout.action === 'escalate')?.onTimeout ?? { action: 'reject' },
  };
}

/** "A plan of 3 calls: run_query, run_query, export_csv" */
function describePlan(plan: PlanStep[]): string {
  return `A plan of ${plan.length} call${plan.length === 1 ? '' : 's'}: ${plan.map((step) => step.tool).join(', ')}`;
}
