/**
 * The approval responses of a chat request, as decisions of the signed-in person on the revisions
 * they were shown: through the very path the REST route takes (`decide`), so the same rules hold
 * (roles, quorum, self-approval, deadlines, stale revisions). A decision the rules refuse is
 * returned, to be shown in the chat with its reason: it is never dropped.
 */
import { createHash } from 'node:crypto';
import { parseTrackingId, type ApproverIdentity, type Decision } from '../../protocol/index.js';
import type { ApiOptions } from '../context.js';
import { decide } from '../decide.js';
import { HttpError } from '../errors.js';
import { requestIdFor } from '../routes/approvals.js';
import type { ApprovalResponse } from './chat-request.js';
import type { ChatDecisionRefused } from './chat-stream-schemas.js';

/** The decision an answer stands for: approved (or edited, through the extension), or refused with its reason. */
export function decisionOf(response: ApprovalResponse): Decision {
  const message = response.reason ? { message: response.reason } : {};
  if (!response.approved) return { type: 'reject', ...message };
  if (response.editedArgs) return { type: 'edit', args: response.editedArgs, ...message };
  return { type: 'approve', ...message };
}

/**
 * Whether an approval of `approvalRunId` is the chat run's to decide: its own, or one of its
 * sub-agents', whose run ids begin with the run's (`<runId>--<call id>`).
 */
function ofRun(approvalRunId: string | undefined, runId: string): boolean {
  return approvalRunId !== undefined && (approvalRunId === runId || approvalRunId.startsWith(`${runId}--`));
}

/**
 * Applies the answers to the run's approvals, one after another; answers to another run's
 * approvals (an earlier turn's, long settled) are not this turn's to apply. Returns those refused.
 */
export async function applyResponses(
  options: ApiOptions,
  caller: ApproverIdentity,
  runId: string,
  responses: ApprovalResponse[],
): Promise<{ refused: ChatDecisionRefused[]; decided: Set<string> }> {
  const refused: ChatDecisionRefused[] = [];
  /** The approval ids (tracking id and revision) taken, or on their way to the run. */
  const decided = new Set<string>();
  for (const response of responses) {
    if (!ofRun(parseTrackingId(response.trackingId)?.runId, runId)) continue;
    const decision = decisionOf(response);
    // The same answer sent again (a retried request, a resent history) is the same request: the
    // run answers it with its first outcome and never takes it twice.
    const digest = createHash('sha256').update(JSON.stringify(decision)).digest('base64url').slice(0, 16);
    const shown = {
      approvalId: response.approvalId,
      trackingId: response.trackingId,
      toolCallId: response.toolCallId,
    };
    try {
      const { outcome } = await decide(
        {
          client: options.client,
          agents: options.agents,
          waitMs: options.decisionWaitMs ?? 5_000,
          sealer: options.sealer,
        },
        {
          trackingId: response.trackingId,
          decision,
          approver: caller,
          channel: 'chat',
          requestId: requestIdFor(caller.id, `chat:${response.approvalId}:${digest}`),
          idempotent: true,
          revision: response.revision,
        },
      );
      if (!outcome || outcome.accepted) decided.add(response.approvalId);
      else {
        refused.push({
          ...shown,
          code: outcome.code ?? 'decision_not_allowed',
          reason: outcome.reason ?? 'the decision was refused',
          ...(outcome.fieldErrors ? { fields: outcome.fieldErrors } : {}),
        });
      }
    } catch (err) {
      // What the API refuses before the run sees it (a role, a settled approval, invalid edited
      // arguments) is a refusal to show; Temporal or the worker being unavailable fails the request.
      if (!(err instanceof HttpError) || err.status >= 500) throw err;
      refused.push({
        ...shown,
        code: err.details.code,
        reason: err.message,
        ...(err.details.fields ? { fields: err.details.fields } : {}),
      });
    }
  }
  return { refused, decided };
}
