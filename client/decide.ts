import { setTimeout as sleep } from 'node:timers/promises';
import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { DecisionSignal, parseTrackingId, type DecisionOutcome } from '../protocol/index.js';
import {
  approvalQuery,
  decisionOutcomeQuery,
  decisionSignal,
  decisionUpdate,
} from '../workflows/definitions.js';
import { getDecisionOutcome, getFinalState } from './runs.js';
import { queryRun } from './query-run.js';
import { UnknownApprovalError } from '../errors/unknown-approval.js';

export { UnknownApprovalError };

/**
 * Sends a decision to the run its tracking id names and waits up to `waitMs` for the workflow to
 * say what it did with it. It goes as an update (`decisionUpdate`, the request id its update id), so
 * a worker answers in one round trip; when none answers within `waitMs`, or the server or the
 * worker's code does not take updates, it goes as the decision signal, durable while no worker
 * runs, and the outcome is asked for until `waitMs` is over (`waitMs: 0` sends the signal at once).
 * Returns null when the workflow has not taken it yet (poll `getDecisionOutcome` by request id
 * later). The workflow takes a request id once, whichever way it came. It checks everything again
 * (roles, revision, policy): a refused decision comes back with `accepted: false` and a code.
 *
 * @example
 * ```ts
 * const outcome = await sendDecision(client, {
 *   trackingId: approval.trackingId,
 *   decision: { type: 'approve' },
 *   approver: { id: 'lee', roles: ['support-lead'] },
 *   channel: 'api',
 *   requestId: crypto.randomUUID(),
 *   revision: approval.revision,
 * });
 * if (outcome && !outcome.accepted) console.error(outcome.code, outcome.reason);
 * ```
 */
export async function sendDecision(
  client: Client,
  signal: DecisionSignal,
  { waitMs = 5_000, pollMs = 50 }: { waitMs?: number; pollMs?: number } = {},
): Promise<DecisionOutcome | null> {
  const payload = DecisionSignal.parse(signal);
  const parsed = parseTrackingId(payload.trackingId);
  if (!parsed) throw new UnknownApprovalError(payload.trackingId);
  const handle = client.workflow.getHandle(parsed.runId);
  const deadline = Date.now() + waitMs;
  // A caller that does not wait gets the signal at once: an update is durable only once a worker
  // takes it.
  if (waitMs > 0) {
    try {
      // The request id as the update id: the server answers a retry with the first update's outcome.
      return await client.withDeadline(deadline, () =>
        handle.executeUpdate(decisionUpdate, { args: [payload], updateId: payload.requestId }),
      );
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return settledOutcome(client, payload);
      // No worker answered in time, or the server or the worker's code refused the update. An update
      // the server still holds may yet be taken with the signal: the workflow decides a request once.
    }
  }
  try {
    await handle.signal(decisionSignal, payload);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return settledOutcome(client, payload);
    throw err;
  }
  for (;;) {
    // The gRPC deadline bounds each query too: with no worker up, a query waits for the server's
    // own timeout, far longer than the caller agreed to wait.
    const outcome = await client.withDeadline(Math.max(deadline, Date.now() + pollMs), () =>
      queryOutcome(handle, payload.requestId),
    );
    if (outcome) return outcome;
    if (Date.now() >= deadline) return null;
    await sleep(pollMs);
  }
}

/** A query fails while no worker is up; the signal is safe in the history, so that is "not yet". */
async function queryOutcome(handle: WorkflowHandle, requestId: string): Promise<DecisionOutcome | null> {
  try {
    return await queryRun(handle, decisionOutcomeQuery, requestId);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw err;
    return null;
  }
}

/** A closed run takes no signals: answer from its result (or a query), or report the id unknown. */
async function settledOutcome(client: Client, signal: DecisionSignal): Promise<DecisionOutcome> {
  const runId = parseTrackingId(signal.trackingId)!.runId;
  let approval = null;
  try {
    const known = await getDecisionOutcome(client, runId, signal.requestId);
    if (known) return known;
    const final = await getFinalState(client, runId);
    approval = final
      ? (final.approvals.find((view) => view.trackingId === signal.trackingId) ?? null)
      : await queryRun(client.workflow.getHandle(runId), approvalQuery, signal.trackingId);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new UnknownApprovalError(signal.trackingId);
    throw err;
  }
  if (!approval) throw new UnknownApprovalError(signal.trackingId);
  return {
    requestId: signal.requestId,
    trackingId: signal.trackingId,
    accepted: false,
    code: 'already_settled',
    reason: `the run has ended; this approval is ${approval.status}`,
    status: approval.status,
    approvals: approval.approvals.length,
    requiredApprovals: approval.requiredApprovals,
    at: new Date().toISOString(),
  };
}
