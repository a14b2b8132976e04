import type { JsonObject, ToolSpec } from '../protocol/index.js';
import { awaitHumanDecision } from './approval-gate.js';
import { describeCall } from './describe.js';
import { policyOf, requirementOf, type PolicyDecision } from './evaluate-policy.js';
import type { RunContext } from './run-context.js';
import { runCall } from './run-call.js';
import {
  deniedMessage,
  editedCallMessage,
  expiredMessage,
  rejectedMessage,
  resultMessage,
} from './tool-messages.js';

/** One call the policy sent to a human: wait for the decision, then synthesize the tool's response. */
export async function gatedCall(
  ctx: RunContext,
  tool: ToolSpec,
  toolCallId: string,
  args: JsonObject,
  decision: Extract<PolicyDecision, { verdict: 'approve' }>,
): Promise<string> {
  // A standing approval given on an earlier call of the run may cover this one: it runs as theirs.
  // A call that already asked (carried over a continue-as-new) waits on its own approval.
  const asked = ctx.book.all().some((view) => view.kind === 'call' && view.toolCallId === toolCallId);
  const standing = asked ? undefined : ctx.book.standing.cover(tool, toolCallId, args, decision);
  if (standing) return runCall(ctx, tool, toolCallId, args, { approvedBy: standing.grantedBy });
  const policy = policyOf(tool);
  const { tier } = decision;
  const view = await awaitHumanDecision(ctx.book, {
    kind: 'call',
    tool: tool.name,
    toolCallId,
    args,
    description: describeCall(tool, args),
    describe: (edited) => describeCall(tool, edited.args),
    schema: tool.parameters,
    ...(tool.resultSchema ? { resultSchema: tool.resultSchema } : {}),
    allowedDecisions: policy.decisions,
    ...(policy.editableFields ? { editableFields: policy.editableFields } : {}),
    requirements: [requirementOf(decision)],
    allowSelfApproval: policy.allowSelfApproval,
    deadlineSeconds: tier.deadlineSeconds,
    onTimeout: tier.onTimeout,
    ...(tier.remind ? { remind: tier.remind } : {}),
    ...(tier.standing ? { standing: tier.standing } : {}),
  });
  const outcome = view.outcome;
  if (view.status === 'edited' && outcome?.args) ctx.totals.count(toolCallId, tool, outcome.args);
  if (view.status !== 'approved' && view.status !== 'edited' && view.status !== 'responded')
    ctx.totals.drop(toolCallId);
  switch (view.status) {
    case 'approved':
    case 'edited': {
      const ran = await runCall(ctx, tool, toolCallId, outcome?.args ?? args, {
        trackingId: view.trackingId,
        approvedBy: outcome?.by ?? [],
      });
      // Told only the result of arguments it did not propose, a model may propose its own again.
      return view.status === 'edited' ? editedCallMessage(outcome?.by ?? [], outcome?.diff ?? [], ran) : ran;
    }
    case 'responded':
      return resultMessage(outcome?.result ?? null);
    case 'rejected':
      return rejectedMessage(tool.name, outcome?.by ?? [], outcome?.message);
    default:
      return expiredMessage(tool.name);
  }
}

/** A call the policy refuses outright. */
export function deniedCall(ctx: RunContext, tool: ToolSpec, toolCallId: string): string {
  ctx.log.add({ type: 'tool.denied', tool: tool.name, data: { toolCallId } });
  return deniedMessage(tool.name);
}
