import type { JsonObject, Requirement, ToolSpec } from '../protocol/index.js';
import { evaluatePolicy, policyOf, requirementOf } from './evaluate-policy.js';
import type { RunContext } from './run-context.js';

/** Who is asked about one call after its approval (its secret, its unknown outcome), and whether its requester may answer. */
export interface CallDeciders {
  requirements: Requirement[];
  allowSelfApproval: boolean;
}

/**
 * Those who decide what one call still needs: the people its own approval named, or, for a call
 * that ran without one of its own (automatic, or a step of a reviewed plan, whose approval named
 * every step's roles at once), those its own tool's policy names for these arguments.
 */
export function callDeciders(
  ctx: RunContext,
  tool: ToolSpec,
  toolCallId: string,
  args: JsonObject,
  trackingId: string | undefined,
): CallDeciders {
  const policy = policyOf(tool);
  const approval = trackingId ? ctx.book.get(trackingId) : null;
  if (approval && approval.kind === 'call' && approval.toolCallId === toolCallId) {
    return { requirements: approval.requirements, allowSelfApproval: approval.allowSelfApproval };
  }
  const decision = evaluatePolicy(tool, args, ctx.totals.of(tool.name, [toolCallId]));
  const requirement: Requirement =
    decision.verdict === 'approve'
      ? requirementOf(decision)
      : { roles: policy.approvers, count: 1, reason: `${tool.name} ran without an approval of its own` };
  return { requirements: [requirement], allowSelfApproval: policy.allowSelfApproval };
}
