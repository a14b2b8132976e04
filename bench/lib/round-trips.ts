import { percentile } from './stats.js';

/**
 * What a system does between a decision and the run's end, counted instead of timed, so it does
 * not depend on the machine's speed. A count a system has no such thing for is left out (`-`).
 */
export interface RoundTrips {
  /** Workflow tasks started: each a dispatch to a worker and its answer. */
  workflowTasks?: number;
  /** Activities scheduled: each a dispatch to a worker and its answer. */
  activities?: number;
  /** Local activities: run in the workflow task's worker, recorded as a marker. */
  localActivities?: number;
  /** Signals and updates the run received, the decision included. */
  messages?: number;
  /**
   * Writes to the durable store: on Temporal, the batches appended to the run's history (each one
   * transaction of the server); for a peer in one process, the calls that write its store.
   */
  writes?: number;
}

/** The fields of a Temporal history event counted here; both SDK versions the bench runs decode to this. */
export interface CountedEvent {
  /**
   * The server numbers the events of one batch (one transaction) consecutively, then takes the
   * next number for the transaction itself: a gap starts another batch.
   */
  taskId?: { toString(): string } | number | null;
  workflowTaskStartedEventAttributes?: unknown;
  activityTaskScheduledEventAttributes?: unknown;
  markerRecordedEventAttributes?: { markerName?: string | null } | null;
  workflowExecutionSignaledEventAttributes?: unknown;
  workflowExecutionUpdateAdmittedEventAttributes?: unknown;
  workflowExecutionUpdateAcceptedEventAttributes?: unknown;
  workflowExecutionContinuedAsNewEventAttributes?: { newExecutionRunId?: string | null } | null;
}

/** The marker the TypeScript SDK records for each local activity. */
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

const isMessage = (e: CountedEvent) =>
  Boolean(
    e.workflowExecutionSignaledEventAttributes ||
      e.workflowExecutionUpdateAdmittedEventAttributes ||
      e.workflowExecutionUpdateAcceptedEventAttributes,
  );

/**
 * Round trips from the decision to the end, read from the histories of a run's executions (more
 * than one where it continued as new), first to last. The decision is the run's first signal or
 * update: the scenario sends the run none before it. Counting starts at the first event of the
 * batch that recorded it: an update is recorded with the workflow task that accepted it.
 */
export function roundTripsFromHistory(executions: readonly (readonly CountedEvent[])[]): RoundTrips {
  // Batch numbers run on across executions: a continued run's first batch is a write of its own.
  const batches: number[] = [];
  const events: CountedEvent[] = [];
  let previous: number | undefined;
  for (const execution of executions) {
    for (const event of execution) {
      const taskId = Number(String(event.taskId ?? Number.NaN));
      const same = previous !== undefined && taskId === previous + 1;
      batches.push(same ? batches.at(-1)! : batches.length === 0 ? 0 : batches.at(-1)! + 1);
      events.push(event);
      previous = taskId;
    }
    previous = undefined;
  }
  const decision = events.findIndex(isMessage);
  if (decision < 0) throw new Error('the run received no decision');
  const first = batches.indexOf(batches[decision]!);
  const after = events.slice(first);
  const count = (pick: (e: CountedEvent) => unknown) => after.filter((e) => Boolean(pick(e))).length;
  return {
    workflowTasks: count((e) => e.workflowTaskStartedEventAttributes),
    activities: count((e) => e.activityTaskScheduledEventAttributes),
    localActivities: count((e) => e.markerRecordedEventAttributes?.markerName === LOCAL_ACTIVITY_MARKER),
    messages: count(isMessage),
    writes: new Set(batches.slice(first)).size,
  };
}

/** Each execution's history, following continue-as-new from the first execution to the last. */
export async function executionChain<E extends CountedEvent>(
  fetchHistory: (runId: string) => Promise<E[]>,
  firstRunId: string,
): Promise<E[][]> {
  const executions: E[][] = [];
  let runId: string | undefined = firstRunId;
  while (runId) {
    const events = await fetchHistory(runId);
    executions.push(events);
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return executions;
}

/** The median of each count over the runs; a count no run had stays out. */
export function medianRoundTrips(samples: readonly RoundTrips[]): RoundTrips | undefined {
  if (samples.length === 0) return undefined;
  const keys = ['workflowTasks', 'activities', 'localActivities', 'messages', 'writes'] as const;
  const median: RoundTrips = {};
  for (const key of keys) {
    const values = samples.map((s) => s[key]).filter((v) => v !== undefined);
    if (values.length > 0) median[key] = percentile(values, 50);
  }
  return median;
}
