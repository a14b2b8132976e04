/**
 * Reads that need a run's worker (a query) wait for it a bounded time: with no worker polling the
 * run's task queue, the server holds a query about 30 s before it gives up, and a reader must not.
 */
import type { Client } from '@temporalio/client';
import { grpcStatus } from '../../client/grpc-status.js';
import { HttpError } from '../errors.js';

/** How long a read waits for a run's worker by default (`workerWaitMs`). */
export const WORKER_WAIT_MS = 5_000;

/**
 * How a read that waited on a worker in vain ends: DEADLINE_EXCEEDED (the client's deadline, or the
 * server's own query timeout), CANCELLED (the deadline passing mid-call), or RESOURCE_EXHAUSTED
 * (the run's query buffer stayed full: its workflow task is held by a worker that is gone).
 */
const NOT_ANSWERED = new Set([4, 1, 8]);

/** Seconds a caller told the worker is not answering waits before asking again. */
const RETRY_AFTER_S = 5;

export function workerNotAnswering(runId: string, waitMs: number): HttpError {
  return new HttpError(503, `the worker of run ${runId} did not answer within ${waitMs} ms; try again`, {
    code: 'worker_not_answering',
    retryAfter: RETRY_AFTER_S,
  });
}

export function isWorkerNotAnswering(err: unknown): boolean {
  return err instanceof HttpError && err.details.code === 'worker_not_answering';
}

/**
 * Runs `read` (which may query the run) for at most `waitMs`; past it, a 503 `worker_not_answering`
 * that a route may answer from what Temporal holds without a worker instead.
 */
export async function withinWorkerWait<T>(
  client: Client,
  runId: string,
  waitMs: number,
  read: () => Promise<T>,
): Promise<T> {
  try {
    return await client.withDeadline(Date.now() + waitMs, read);
  } catch (err) {
    const code = grpcStatus(err)?.code;
    if (code !== undefined && NOT_ANSWERED.has(code)) throw workerNotAnswering(runId, waitMs);
    throw err;
  }
}
