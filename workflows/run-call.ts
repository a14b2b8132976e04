import type { JsonObject, JsonValue, ToolSpec } from '../protocol/index.js';
import { awaitHumanDecision } from './approval-gate.js';
import { policyOf } from './evaluate-policy.js';
import type { RunContext } from './run-context.js';
import { secretsForCall } from './supply-secrets.js';
import { attemptTool, type CallOutcome } from './tool-attempts.js';
import { failedMessage, resultMessage, resultWithheldMessage } from './tool-messages.js';
import { markerShaped } from '../protocol/stored-output.js';
import { isPatched, RESULT_QUORUM_PATCH } from './patches.js';

export interface CallAuthority {
  trackingId?: string;
  approvedBy: string[];
}

/**
 * Runs one allowed call and returns the tool message. With `reviewResult`, the output waits for a
 * human (approve, edit or replace it, or withhold it) before the model sees it.
 */
export async function runCall(
  ctx: RunContext,
  tool: ToolSpec,
  toolCallId: string,
  args: JsonObject,
  authority: CallAuthority,
): Promise<string> {
  // A paused run starts no tool; one already running finishes.
  const paused = ctx.paused();
  if (paused) await paused;
  const supplied = tool.secrets?.length
    ? await secretsForCall(ctx, tool, toolCallId, args, authority.trackingId)
    : { ok: true as const, secrets: [] };
  const ran: CallOutcome = !supplied.ok
    ? supplied
    : await attemptTool(ctx, tool, {
        agent: ctx.agent.name,
        tool: tool.name,
        args,
        runId: ctx.runId,
        toolCallId,
        ...(authority.trackingId ? { trackingId: authority.trackingId } : {}),
        approvedBy: authority.approvedBy,
        ...(supplied.secrets.length > 0
          ? {
              secrets: supplied.secrets.map(({ name, trackingId, sealed }) => ({ name, trackingId, sealed })),
            }
          : {}),
      });
  if (supplied.ok) ctx.vault.used(supplied.secrets);
  if (!ran.ok) {
    ctx.log.add({
      type: 'tool.ran',
      tool: tool.name,
      trackingId: authority.trackingId,
      data: { toolCallId, ok: false, error: ran.error },
    });
    return failedMessage(tool.name, ran.error);
  }
  const { result, reportedBy } = ran;
  ctx.log.add({
    type: 'tool.ran',
    tool: tool.name,
    trackingId: authority.trackingId,
    data: { toolCallId, ok: true, ...(reportedBy ? { reportedBy } : {}) },
  });
  // A result a person reported is theirs already: there is nothing of the tool's to review.
  if (reportedBy) return resultMessage(result);

  const policy = policyOf(tool);
  if (tool.safe || !policy.reviewResult) return toolResultMessage(ctx, result);
  // The output is held for the policy's quorum, as its call would be. Runs that reached a review
  // before this asked one approver whatever the quorum; only a quorum above one needs the patch.
  const quorum =
    policy.requiredApprovals > 1 && isPatched(RESULT_QUORUM_PATCH) ? policy.requiredApprovals : 1;
  const review = await awaitHumanDecision(ctx.book, {
    kind: 'result',
    tool: tool.name,
    toolCallId,
    args,
    result,
    description: `Review the output of ${tool.name} before the agent sees it.`,
    schema: {},
    ...(tool.resultSchema ? { resultSchema: tool.resultSchema } : {}),
    // Exactly what the policy allows; an edit needs an object to edit.
    allowedDecisions: policy.decisions.filter((d) => d !== 'edit' || isObject(result)),
    requirements: [
      { roles: policy.approvers, count: quorum, reason: `${tool.name}: its output is held for review` },
    ],
    allowSelfApproval: policy.allowSelfApproval,
    deadlineSeconds: policy.deadlineSeconds,
    onTimeout: policy.onTimeout,
  });
  const outcome = review.outcome;
  switch (review.status) {
    case 'approved':
      return toolResultMessage(ctx, result);
    case 'edited':
    case 'responded':
      return resultMessage(outcome?.result ?? result);
    default:
      return resultWithheldMessage(tool.name, outcome?.by ?? [], outcome?.message);
  }
}

/**
 * The message of the tool's own result. A reference the worker returned for an output it stored is
 * recorded as the run's: a person's result (reported, edited, answered) never is, whatever its shape.
 */
function toolResultMessage(ctx: RunContext, result: JsonValue): string {
  const stored = markerShaped(result);
  if (stored && !ctx.storedOutputs.includes(stored.ref)) ctx.storedOutputs.push(stored.ref);
  return resultMessage(result);
}

function isObject(value: JsonValue): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
