import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

const ALL_EVENTS = proto.temporal.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT;
const TASK_COMPLETED = proto.temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED;

/**
 * Yields each time a workflow task of the run completes, by long-polling
 * GetWorkflowExecutionHistory with waitNewEvent, and returns once the history is complete (the run
 * has closed). The run's event log only changes in a workflow task (a decision taken, a tool result,
 * an approval requested), so that is the moment to re-read it; the other events (tasks scheduled and
 * started, activity progress) would each cost a query for nothing. Ends quietly when `signal` aborts.
 */
export async function* historyChanges(
  client: Client,
  namespace: string,
  runId: string,
  signal: AbortSignal,
): AsyncGenerator<{ closed: boolean }> {
  let nextPageToken: Uint8Array | undefined;
  while (!signal.aborted) {
    const page = await withCallSignal(signal, (callSignal) =>
      client.withAbortSignal(callSignal, () =>
        client.workflowService.getWorkflowExecutionHistory({
          namespace,
          execution: { workflowId: runId },
          waitNewEvent: true,
          historyEventFilterType: ALL_EVENTS,
          nextPageToken,
          skipArchival: true,
        }),
      ),
    );
    const events = page.history?.events ?? [];
    const grew = events.length > 0;
    const closed = !page.nextPageToken || page.nextPageToken.length === 0;
    if (closed || events.some((event) => event.eventType === TASK_COMPLETED)) yield { closed };
    if (closed) return;
    nextPageToken = page.nextPageToken ?? undefined;
    // A long poll that ends with nothing new is the server's timeout; pause briefly so a server
    // that answers at once cannot turn this into a busy loop.
    if (!grew) await sleep(200, undefined, { signal }).catch(() => undefined);
  }
}

/**
 * The SDK adds an abort listener to the signal of every call and never removes it, so a stream's
 * own signal would gather one per long poll; each call gets a signal of its own instead.
 */
async function withCallSignal<T>(
  signal: AbortSignal,
  fn: (callSignal: AbortSignal) => Promise<T>,
): Promise<T> {
  const call = new AbortController();
  const forward = () => call.abort();
  signal.addEventListener('abort', forward, { once: true });
  try {
    return await fn(call.signal);
  } finally {
    signal.removeEventListener('abort', forward);
  }
}
