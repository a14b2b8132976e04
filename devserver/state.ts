import type { Payload } from './proto.js';

/**
 * The mutable state of one run: everything needed to carry on after a restart. It is saved
 * as JSON with protobuf-valued parts kept as base64 of their encoded message, in the same
 * transaction as the history events it produced.
 */
export interface RetrySettings {
  initialMs: number;
  coefficient: number;
  maxIntervalMs: number;
  /** 0 means unlimited. */
  maxAttempts: number;
  nonRetryable: string[];
}

export interface ActivityState {
  scheduledEventId: number;
  activityId: string;
  activityType: string;
  taskQueue: string;
  /** base64 ActivityTaskScheduledEventAttributes, normalized; the source of each attempt's task. */
  scheduled: string;
  attempt: number;
  started: boolean;
  /** When the first attempt was scheduled (schedule-to-close counts from here). */
  scheduledTime: number;
  /** When the current attempt becomes (or became) dispatchable, after any retry backoff. */
  readyAt: number;
  startedTime?: number;
  startedIdentity?: string;
  startedRequestId?: string;
  lastHeartbeatTime?: number;
  /** base64 Payloads */
  heartbeatDetails?: string;
  /** base64 Failure of the previous attempt */
  lastFailure?: string;
  cancelRequestedEventId?: number;
  scheduleToCloseMs: number;
  scheduleToStartMs: number;
  startToCloseMs: number;
  heartbeatMs: number;
  retry: RetrySettings;
}

export interface WorkflowTaskState {
  scheduledEventId: number;
  attempt: number;
  scheduledTime: number;
  /** Dispatchable from this time (first-task backoff of a continued run, retry backoff). */
  readyAt: number;
  startedEventId?: number;
  startedTime?: number;
  identity?: string;
}

export interface TimerState {
  timerId: string;
  startedEventId: number;
  fireTime: number;
}

/** An event that arrived while a workflow task was running; written when the task ends. */
export interface BufferedEvent {
  /** base64 HistoryEvent without eventId */
  event: string;
  /** Set attributes.startedEventId to the id of the event written just before this one. */
  linkStarted?: boolean;
}

export interface RunState {
  namespace: string;
  workflowId: string;
  runId: string;
  firstRunId: string;
  workflowType: string;
  taskQueue: string;
  status: number;
  startTime: number;
  executionTime: number;
  closeTime?: number;
  nextEventId: number;
  /** startedEventId of the last completed workflow task (the worker's previousStartedEventId). */
  lastCompletedWtStartedId: number;
  workflowTaskTimeoutMs: number;
  runTimeoutMs: number;
  executionTimeoutMs: number;
  runExpiration?: number;
  executionExpiration?: number;
  wt?: WorkflowTaskState;
  activities: Record<string, ActivityState>;
  timers: Record<string, TimerState>;
  buffered: BufferedEvent[];
  cancelRequested: boolean;
  /** base64 Memo / SearchAttributes */
  memo?: string;
  searchAttributes?: string;
  startRequestId: string;
  /** Recent signal and cancel request ids, for dedupe of retried requests. */
  requestIds: string[];
  historySizeBytes: number;
  /**
   * The history length the visibility store last recorded. As on Temporal, a run's list entry is
   * written when it starts, closes, or changes its search attributes or memo, so a list shows the
   * length as of then; describe shows the live one. Absent in runs saved before it was kept.
   */
  visibleHistoryLength?: number;
  /** Run that continued this one, for clients following the chain. */
  newRunId?: string;
}

export type PayloadMap = Record<string, Payload>;

/** The base64 fields of RunState and its parts. */
const BINARY_KEYS = new Set([
  'scheduled',
  'heartbeatDetails',
  'lastFailure',
  'event',
  'memo',
  'searchAttributes',
]);
/** Marks a binary field saved as latin1 text; base64 never starts with it, so older saves still load. */
const LATIN1 = '\u0000';

/**
 * The run's state as saved: binary fields as latin1 text rather than base64, a third smaller and
 * far more compressible (a memo is mostly JSON text inside a little protobuf framing).
 */
export function serializeRunState(state: RunState): string {
  return JSON.stringify(state, (key, value: unknown) =>
    typeof value === 'string' && BINARY_KEYS.has(key)
      ? LATIN1 + Buffer.from(value, 'base64').toString('latin1')
      : value,
  );
}

export function parseRunState(saved: string): RunState {
  return JSON.parse(saved, (key, value: unknown) =>
    typeof value === 'string' && BINARY_KEYS.has(key) && value.startsWith(LATIN1)
      ? Buffer.from(value.slice(1), 'latin1').toString('base64')
      : value,
  ) as RunState;
}
