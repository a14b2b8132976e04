/** One run's state and approvals, as the routes read them; an unknown run is a 404. */
import { WorkflowNotFoundError, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import { PENDING_MEMO_KEY, isRunId, type ApprovalView, type RunState } from '../../protocol/index.js';
import { getFinalState, getRunState } from '../../client/index.js';
import { approvalQuery } from '../../workflows/definitions.js';
import { HttpError } from '../errors.js';
import { pendingFromMemo } from './run-lists.js';
import { queryRun } from '../../client/query-run.js';
import { WORKER_WAIT_MS, withinWorkerWait } from './worker-wait.js';
import { describeReadable } from './memo-less-describe.js';

function pendingOf(info: Pick<WorkflowExecutionInfo, 'memo' | 'status'>): ApprovalView[] {
  return pendingFromMemo(info.status.name === 'RUNNING', info.memo?.[PENDING_MEMO_KEY]);
}

/** Runs the call; an unknown or malformed run id is a 404. */
export async function onRun<T>(runId: string, read: () => Promise<T>): Promise<T> {
  if (!isRunId(runId)) throw new HttpError(404, `no run ${runId}`, { code: 'not_found' });
  try {
    return await read();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError)
      throw new HttpError(404, `no run ${runId}`, { code: 'not_found' });
    throw err;
  }
}

export function runHandle(client: Client, runId: string) {
  return client.workflow.getHandle(runId);
}

/**
 * The run's state; a worker that does not answer within `waitMs` is a 503 `worker_not_answering`.
 * `described`: the run as the caller just described it, not read again.
 */
export function readState(
  client: Client,
  runId: string,
  waitMs = WORKER_WAIT_MS,
  described?: Pick<WorkflowExecutionInfo, 'status'>,
): Promise<RunState> {
  return onRun(runId, () =>
    withinWorkerWait(client, runId, waitMs, () => getRunState(client, runId, described)),
  );
}

/**
 * One approval of the run; a worker that does not answer within `waitMs` is a 503
 * `worker_not_answering`. `described`: the run as the caller just described it, not read again.
 */
export function readApproval(
  client: Client,
  runId: string,
  trackingId: string,
  waitMs = WORKER_WAIT_MS,
  described?: Pick<WorkflowExecutionInfo, 'status'>,
): Promise<ApprovalView | null> {
  return onRun(runId, () =>
    withinWorkerWait(client, runId, waitMs, async () => {
      const handle = runHandle(client, runId);
      const { status } = described ?? (await handle.describe());
      const final = status.name !== 'RUNNING' ? await getFinalState(client, runId) : undefined;
      if (final) return final.approvals.find((approval) => approval.trackingId === trackingId) ?? null;
      return queryRun(handle, approvalQuery, trackingId);
    }),
  );
}

/**
 * A pending approval as the run's memo shows it (without its schema), read from Temporal alone:
 * no worker needs to be up, so a decision can be taken while every worker is down.
 */
export async function readPendingFromMemo(
  client: Client,
  runId: string,
  trackingId: string,
  described?: Pick<WorkflowExecutionInfo, 'memo' | 'status'>,
): Promise<ApprovalView | null> {
  const info = described ?? (await describeRun(client, runId));
  return pendingOf(info).find((view) => view.trackingId === trackingId) ?? null;
}

/** The run's description; one whose memo this API cannot decode is described without it. */
export async function describeRun(client: Client, runId: string) {
  return onRun(runId, () => describeReadable(client, runId));
}
