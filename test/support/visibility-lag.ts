import { setTimeout as sleep } from 'node:timers/promises';
import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';

/**
 * How stale the API's list queries are made (COUNTERSIGN_TEST_VISIBILITY_LAG_MS), to show that
 * nothing Countersign answers relies on reading its own writes through visibility, as a real
 * cluster's Elasticsearch would not allow. 0 when unset.
 */
export function visibilityLagMs(): number {
  const raw = process.env.COUNTERSIGN_TEST_VISIBILITY_LAG_MS;
  if (!raw) return 0;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 0)
    throw new Error(`COUNTERSIGN_TEST_VISIBILITY_LAG_MS must be milliseconds, got ${raw}`);
  return ms;
}

/**
 * The dev server's part of the lag: its visibility queue is read at most once a second, so a run's
 * start, search attributes and close reach the list up to a second after they happened, and a list
 * sent right after a write may not show it.
 */
export function laggingVisibilityConfig(): Record<string, number> {
  return visibilityLagMs() > 0 ? { 'history.visibilityProcessorMaxPollRPS': 1 } : {};
}

const LIST_METHODS = new Set([
  'ListWorkflowExecutions',
  'ScanWorkflowExecutions',
  'CountWorkflowExecutions',
  'ListOpenWorkflowExecutions',
  'ListClosedWorkflowExecutions',
]);

/**
 * The connection's part: a list's answer is held `ms` after it was asked for, so what the caller
 * reads is always at least that old, whatever it wrote meanwhile.
 */
export function holdListAnswers(ms: number): Interceptor {
  return (options, nextCall) => {
    const method = options.method_definition.path.split('/').pop() ?? '';
    if (!LIST_METHODS.has(method)) return new InterceptingCall(nextCall(options));
    return new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        const due = Date.now() + ms;
        // Metadata, message and status keep their order, each released no sooner than `due`.
        let released = Promise.resolve();
        const hold = (deliver: () => void) => {
          released = released.then(() => sleep(Math.max(0, due - Date.now()))).then(deliver);
        };
        next(metadata, {
          onReceiveMetadata: (received, deliver) => hold(() => deliver(received)),
          onReceiveMessage: (received: unknown, deliver: (message: unknown) => void) =>
            hold(() => deliver(received)),
          onReceiveStatus: (status, deliver) => hold(() => deliver(status)),
        });
      },
    });
  };
}
