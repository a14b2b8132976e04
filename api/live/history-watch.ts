import { setTimeout as sleep } from 'node:timers/promises';
import { isGrpcDeadlineError, type Client } from '@temporalio/client';
import proto from '@temporalio/proto';

const ALL_EVENTS = proto.temporal.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT;
const E = proto.temporal.api.enums.v1.EventType;
const ACTIVITY_CLOSED = new Set([
  E.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
  E.EVENT_TYPE_ACTIVITY_TASK_FAILED,
  E.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT,
  E.EVENT_TYPE_ACTIVITY_TASK_CANCELED,
]);
const TASK_ENDED = new Set([
  E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
  E.EVENT_TYPE_WORKFLOW_TASK_FAILED,
  E.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
]);

/**
 * How long a change waits for the next one while the run is visibly busy (an activity running, a
 * workflow task scheduled), so the two are read with one query. Each read is a query the worker
 * answers between the run's own tasks; a tool call and a model call in a row would otherwise cost
 * two, each holding back the task that follows.
 */
const COALESCE_MS = 100;

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/** What the history says the run is doing: activities in flight, a workflow task to come. */
class Progress {
  private readonly activities = new Set<string>();
  private taskPending = false;

  see(event: HistoryEvent): void {
    const type = event.eventType;
    if (type === E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) this.activities.add(String(event.eventId));
    else if (type === E.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED) this.taskPending = true;
    else if (type !== undefined && type !== null && TASK_ENDED.has(type)) this.taskPending = false;
    else if (type !== undefined && type !== null && ACTIVITY_CLOSED.has(type)) {
      const attrs =
        event.activityTaskCompletedEventAttributes ??
        event.activityTaskFailedEventAttributes ??
        event.activityTaskTimedOutEventAttributes ??
        event.activityTaskCanceledEventAttributes;
      this.activities.delete(String(attrs?.scheduledEventId ?? ''));
    }
  }

  get busy(): boolean {
    return this.taskPending || this.activities.size > 0;
  }
}

/**
 * Yields each time the run's event log may have changed, by long-polling
 * GetWorkflowExecutionHistory with waitNewEvent, and returns once the history is complete (the run
 * has closed). The log only changes in a workflow task (a decision taken, a tool result, an
 * approval requested), so a completed task is the moment to re-read it; while the run is busy with
 * more work, the next task is awaited a little first (COALESCE_MS). Ends quietly when `signal`
 * aborts.
 */
export async function* historyChanges(
  client: Client,
  namespace: string,
  runId: string,
  signal: AbortSignal,
): AsyncGenerator<{ closed: boolean }> {
  let nextPageToken: Uint8Array | undefined;
  let progress = new Progress();
  /** When the log was last seen to change, while it has not been read since. */
  let unreadSince: number | undefined;
  while (!signal.aborted) {
    const unread = unreadSince !== undefined;
    const poll = () =>
      client.workflowService.getWorkflowExecutionHistory({
        namespace,
        execution: { workflowId: runId },
        waitNewEvent: true,
        historyEventFilterType: ALL_EVENTS,
        nextPageToken,
        skipArchival: true,
      });
    let page: Awaited<ReturnType<typeof poll>>;
    try {
      page = await withCallSignal(signal, (callSignal) =>
        client.withAbortSignal(callSignal, () =>
          unread ? client.withDeadline(unreadSince! + COALESCE_MS, poll) : poll(),
        ),
      );
    } catch (err) {
      if (!unread || !isGrpcDeadlineError(err)) throw err;
      // The run is still busy after the wait: read what has changed so far.
      unreadSince = undefined;
      yield { closed: false };
      continue;
    }
    const events = page.history?.events ?? [];
    // The run continued as new: its log goes on in the next execution, followed from its start.
    if (events.at(-1)?.eventType === E.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW) {
      nextPageToken = undefined;
      progress = new Progress();
      unreadSince = undefined;
      yield { closed: false };
      continue;
    }
    for (const event of events) {
      progress.see(event);
      if (event.eventType === E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) unreadSince ??= Date.now();
    }
    const closed = !page.nextPageToken || page.nextPageToken.length === 0;
    if (closed) {
      yield { closed };
      return;
    }
    if (unreadSince !== undefined && !progress.busy) {
      unreadSince = undefined;
      yield { closed };
    }
    nextPageToken = page.nextPageToken ?? undefined;
    // A long poll that ends with nothing new is the server's timeout; pause briefly so a server
    // that answers at once cannot turn this into a busy loop.
    if (events.length === 0 && unreadSince === undefined)
      await sleep(200, undefined, { signal }).catch(() => undefined);
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
