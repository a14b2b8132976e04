import { Context } from '@temporalio/activity';

/**
 * How often a running activity reports liveness. Well inside the workflow's heartbeat timeouts, so
 * the attempt of a worker that died is retried within seconds rather than at its start-to-close
 * timeout (ten minutes for a model call).
 */
const HEARTBEAT_MS = 2_000;

/**
 * Runs `work` while heartbeating. `details` is what each heartbeat records, for an activity that
 * keeps its progress there; without it heartbeats carry nothing. The first beat comes after one
 * interval, not at once: the heartbeat timeout runs from the attempt's start anyway, and most
 * calls end before it, so they cost the server no heartbeat at all.
 */
export async function whileHeartbeating<T>(work: () => Promise<T>, details?: () => unknown): Promise<T> {
  const context = Context.current();
  const beat = () => (details ? context.heartbeat(details()) : context.heartbeat());
  const timer = setInterval(beat, HEARTBEAT_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
