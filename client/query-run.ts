import { setTimeout as sleep } from 'node:timers/promises';
import type { QueryDefinition, WorkflowHandle } from '@temporalio/client';
import { grpcStatus } from './grpc-status.js';

/** gRPC's RESOURCE_EXHAUSTED, as the server answers a query it cannot buffer. */
const RESOURCE_EXHAUSTED = 8;
/** About five seconds in all: a workflow task rarely takes longer, and a reader must not hang. */
const ATTEMPTS = 12;

/** The server buffers few queries while a run's workflow task is in flight, one by default. */
function queryBufferFull(err: unknown): boolean {
  const status = grpcStatus(err);
  return status?.code === RESOURCE_EXHAUSTED && /query buffer/i.test(status.details ?? '');
}

/**
 * Queries a run, trying again while the server's buffer of queries waiting on the run's workflow
 * task is full: several readers of one busy run (its stream, the inbox, a decision) meet this on
 * any cluster, and it clears as soon as the task completes.
 */
export async function queryRun<Ret, Args extends unknown[]>(
  handle: WorkflowHandle,
  query: QueryDefinition<Ret, Args>,
  ...args: Args
): Promise<Ret> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await handle.query(query, ...args);
    } catch (err) {
      if (attempt >= ATTEMPTS || !queryBufferFull(err)) throw err;
      await sleep(Math.min(50 * 2 ** (attempt - 1), 500));
    }
  }
}
