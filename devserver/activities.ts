import { decodeFailure, type ActivityTaskRef, type Engine, type PollResponse } from './engine.js';
import { invalid, notFound } from './errors.js';
import { decodeAs, encodeAs, RetryState, TimeoutType, type Failure, type temporal } from './proto.js';
import { Run, Txn, b64, newId, unb64 } from './run.js';
import type { ActivityState, RetrySettings } from './state.js';
import { durationMs, msDuration, msTimestamp } from './time.js';
import { decodeToken, encodeToken } from './tokens.js';

type ScheduleAttrs = temporal.api.command.v1.IScheduleActivityTaskCommandAttributes;
type ScheduledEventAttrs = temporal.api.history.v1.IActivityTaskScheduledEventAttributes;

const TIMEOUT_NAMES: Record<number, string> = {
  [TimeoutType.START_TO_CLOSE]: 'StartToClose',
  [TimeoutType.SCHEDULE_TO_START]: 'ScheduleToStart',
  [TimeoutType.SCHEDULE_TO_CLOSE]: 'ScheduleToClose',
  [TimeoutType.HEARTBEAT]: 'Heartbeat',
};

/** Checks a ScheduleActivityTask command; returns a message for the workflow task failure, or null. */
export function activityCommandProblem(attrs: ScheduleAttrs, pendingIds: Set<string>): string | null {
  if (!attrs.activityId) return 'ScheduleActivityTask: activityId is not set';
  if (!attrs.activityType?.name) return 'ScheduleActivityTask: activityType is not set';
  if (!attrs.taskQueue?.name) return 'ScheduleActivityTask: taskQueue is not set';
  if (durationMs(attrs.scheduleToCloseTimeout) <= 0 && durationMs(attrs.startToCloseTimeout) <= 0) {
    return 'ScheduleActivityTask: a valid StartToClose or ScheduleToClose timeout is not set';
  }
  if (pendingIds.has(attrs.activityId))
    return `ScheduleActivityTask: activityId ${attrs.activityId} is already in use`;
  return null;
}

function retrySettings(p: temporal.api.common.v1.IRetryPolicy | null | undefined): RetrySettings {
  const initialMs = durationMs(p?.initialInterval) || 1000;
  return {
    initialMs,
    coefficient: p?.backoffCoefficient && p.backoffCoefficient >= 1 ? p.backoffCoefficient : 2,
    maxIntervalMs: durationMs(p?.maximumInterval) || initialMs * 100,
    maxAttempts: p?.maximumAttempts ?? 0,
    nonRetryable: p?.nonRetryableErrorTypes ?? [],
  };
}

/** Writes ActivityTaskScheduled with timeouts and retry policy normalized as a real server does. */
export function scheduleActivity(tx: Txn, run: Run, attrs: ScheduleAttrs, completedEventId: number): number {
  const s2c = durationMs(attrs.scheduleToCloseTimeout);
  let s2s = durationMs(attrs.scheduleToStartTimeout);
  let st2c = durationMs(attrs.startToCloseTimeout);
  let hb = durationMs(attrs.heartbeatTimeout);
  if (s2c > 0) {
    if (s2s <= 0 || s2s > s2c) s2s = s2c;
    if (st2c <= 0 || st2c > s2c) st2c = s2c;
  }
  if (hb > st2c) hb = st2c;
  const retry = retrySettings(attrs.retryPolicy);
  const event = {
    activityId: attrs.activityId,
    activityType: attrs.activityType,
    taskQueue: attrs.taskQueue,
    header: attrs.header,
    input: attrs.input,
    // All four are written even when zero (unlimited): the SDK worker requires them present.
    scheduleToCloseTimeout: msDuration(s2c),
    scheduleToStartTimeout: msDuration(s2s),
    startToCloseTimeout: msDuration(st2c),
    heartbeatTimeout: msDuration(hb),
    workflowTaskCompletedEventId: completedEventId,
    retryPolicy: {
      initialInterval: msDuration(retry.initialMs),
      backoffCoefficient: retry.coefficient,
      maximumInterval: msDuration(retry.maxIntervalMs),
      maximumAttempts: retry.maxAttempts,
      nonRetryableErrorTypes: retry.nonRetryable,
    },
    useWorkflowBuildId: attrs.useWorkflowBuildId,
    priority: attrs.priority,
  };
  const id = tx.append(run, 'ActivityTaskScheduled', event);
  run.s.activities[id] = {
    scheduledEventId: id,
    activityId: attrs.activityId!,
    activityType: attrs.activityType!.name!,
    taskQueue: attrs.taskQueue!.name!,
    scheduled: b64(encodeAs('temporal.api.history.v1.ActivityTaskScheduledEventAttributes', event)),
    attempt: 1,
    started: false,
    scheduledTime: tx.now,
    readyAt: tx.now,
    scheduleToCloseMs: s2c,
    scheduleToStartMs: s2s,
    startToCloseMs: st2c,
    heartbeatMs: hb,
    retry,
  };
  return id;
}

/** The workflow asked to cancel an activity: at once if not started (true: the workflow must be told), else via heartbeat. */
export function requestCancelActivity(
  tx: Txn,
  run: Run,
  scheduledEventId: number,
  completedId: number,
): boolean {
  const requested = tx.append(run, 'ActivityTaskCancelRequested', {
    scheduledEventId,
    workflowTaskCompletedEventId: completedId,
  });
  const a = run.s.activities[scheduledEventId];
  // Not pending: its close event is already written or buffered; the request is only recorded.
  if (!a) return false;
  if (!a.started) {
    delete run.s.activities[scheduledEventId];
    tx.append(run, 'ActivityTaskCanceled', {
      latestCancelRequestedEventId: requested,
      scheduledEventId,
      startedEventId: 0,
      identity: 'devserver',
    });
    return true;
  }
  a.cancelRequestedEventId = requested;
  return false;
}

/** Marks the current attempt of a pending activity started and builds its task. */
export function startActivityTask(tx: Txn, run: Run, a: ActivityState, identity: string): PollResponse {
  a.started = true;
  a.startedTime = tx.now;
  a.startedIdentity = identity;
  a.startedRequestId = newId();
  a.lastHeartbeatTime = undefined;
  tx.touch(run);
  const ev = decodeAs<ScheduledEventAttrs>(
    'temporal.api.history.v1.ActivityTaskScheduledEventAttributes',
    unb64(a.scheduled),
  );
  return {
    taskToken: encodeToken({ k: 'a', r: run.s.runId, s: a.scheduledEventId, a: a.attempt }),
    workflowNamespace: run.s.namespace,
    workflowType: { name: run.s.workflowType },
    workflowExecution: { workflowId: run.s.workflowId, runId: run.s.runId },
    activityType: ev.activityType,
    activityId: a.activityId,
    header: ev.header,
    input: ev.input,
    heartbeatDetails: a.heartbeatDetails
      ? decodeAs('temporal.api.common.v1.Payloads', unb64(a.heartbeatDetails))
      : undefined,
    scheduledTime: msTimestamp(a.scheduledTime),
    currentAttemptScheduledTime: msTimestamp(a.readyAt),
    startedTime: msTimestamp(tx.now),
    attempt: a.attempt,
    scheduleToCloseTimeout: ev.scheduleToCloseTimeout,
    startToCloseTimeout: ev.startToCloseTimeout,
    heartbeatTimeout: ev.heartbeatTimeout,
    retryPolicy: ev.retryPolicy,
    priority: ev.priority,
  };
}

/** Matching hands an activity reference to a poller: mark it started and build its task. */
export function takeActivity(engine: Engine, ref: ActivityTaskRef, identity: string): PollResponse | null {
  const { run } = ref;
  const a = run.s.activities[ref.scheduledEventId];
  if (!run.running || !a || a.started || a.attempt !== ref.attempt) return null;
  return engine.exec((tx) => startActivityTask(tx, run, a, identity));
}

export function pollActivityTaskQueue(
  engine: Engine,
  req: temporal.api.workflowservice.v1.IPollActivityTaskQueueRequest,
  onCancel: (cb: () => void) => void,
): Promise<PollResponse> {
  return engine.activityQueues.longPoll(
    req,
    (ref, identity) => takeActivity(engine, ref, identity),
    onCancel,
  );
}

// ---- finding the activity a completion is about ------------------------------------------

interface Located {
  run: Run;
  a: ActivityState;
}

function byToken(engine: Engine, token: Uint8Array | null | undefined): Located {
  const t = decodeToken(token, 'a');
  if (t.k !== 'a') throw invalid('not an activity task token');
  const run = engine.runs.get(t.r);
  const a = run?.s.activities[t.s];
  if (!run || !run.running || !a || !a.started || a.attempt !== t.a) {
    throw notFound('activity task not found: it was completed, timed out, cancelled, or its workflow closed');
  }
  return { run, a };
}

interface ById {
  namespace?: string | null;
  workflowId?: string | null;
  runId?: string | null;
  activityId?: string | null;
}

function byId(engine: Engine, req: ById): Located {
  if (!req.activityId) throw invalid('activityId is required');
  const run = engine.findRun(req.namespace || 'default', { workflowId: req.workflowId, runId: req.runId });
  const a = Object.values(run.s.activities).find((x) => x.activityId === req.activityId);
  if (!run.running || !a)
    throw notFound(`activity ${req.activityId} not found in workflow ${req.workflowId}`);
  return { run, a };
}

export function locateActivity(engine: Engine, req: { taskToken?: Uint8Array | null } & ById): Located {
  return req.taskToken && req.taskToken.length > 0 ? byToken(engine, req.taskToken) : byId(engine, req);
}

// ---- outcomes --------------------------------------------------------------------------

function ensureStarted(a: ActivityState, identity: string, now: number): void {
  // Completion by id may come for an attempt no worker polled (fully async activities).
  if (a.started) return;
  a.started = true;
  a.startedTime = now;
  a.startedIdentity = identity;
  a.startedRequestId = newId();
}

export function completeActivity(
  engine: Engine,
  loc: Located,
  result: object | null | undefined,
  identity: string,
): void {
  engine.exec((tx) => {
    ensureStarted(loc.a, identity, tx.now);
    engine.deliverActivityClose(tx, loc.run, loc.a, 'ActivityTaskCompleted', { result, identity });
  });
}

export function cancelActivity(
  engine: Engine,
  loc: Located,
  details: object | null | undefined,
  identity: string,
): void {
  engine.exec((tx) => {
    ensureStarted(loc.a, identity, tx.now);
    engine.deliverActivityClose(tx, loc.run, loc.a, 'ActivityTaskCanceled', {
      details,
      latestCancelRequestedEventId: loc.a.cancelRequestedEventId ?? 0,
      identity,
    });
  });
}

/** Backoff before the next attempt, or why there is none. */
function nextRetry(a: ActivityState, failure: Failure, now: number): { delay: number } | { state: number } {
  const info = failure.applicationFailureInfo;
  if (info?.nonRetryable) return { state: RetryState.NON_RETRYABLE_FAILURE };
  if (info?.type && a.retry.nonRetryable.includes(info.type))
    return { state: RetryState.NON_RETRYABLE_FAILURE };
  if (a.cancelRequestedEventId) return { state: RetryState.CANCEL_REQUESTED };
  if (a.retry.maxAttempts > 0 && a.attempt >= a.retry.maxAttempts)
    return { state: RetryState.MAXIMUM_ATTEMPTS_REACHED };
  const delay = Math.min(a.retry.initialMs * a.retry.coefficient ** (a.attempt - 1), a.retry.maxIntervalMs);
  if (a.scheduleToCloseMs > 0 && now + delay >= a.scheduledTime + a.scheduleToCloseMs)
    return { state: RetryState.TIMEOUT };
  return { delay };
}

function retryLater(tx: Txn, run: Run, a: ActivityState, failure: Failure, delay: number): void {
  a.attempt += 1;
  a.started = false;
  a.startedTime = undefined;
  a.startedIdentity = undefined;
  a.startedRequestId = undefined;
  a.readyAt = tx.now + delay;
  a.lastFailure = b64(encodeAs('temporal.api.failure.v1.Failure', failure));
  tx.touch(run);
}

export function failActivity(
  engine: Engine,
  loc: Located,
  failure: Failure | null | undefined,
  heartbeat: object | null | undefined,
  identity: string,
): void {
  const f: Failure = failure ?? { message: 'activity failed' };
  engine.exec((tx) => {
    const { run, a } = loc;
    ensureStarted(a, identity, tx.now);
    if (heartbeat) a.heartbeatDetails = b64(encodeAs('temporal.api.common.v1.Payloads', heartbeat));
    const next = nextRetry(a, f, tx.now);
    if ('delay' in next) return retryLater(tx, run, a, f, next.delay);
    engine.deliverActivityClose(tx, run, a, 'ActivityTaskFailed', {
      failure: f,
      identity,
      retryState: next.state,
    });
  });
}

export function heartbeatActivity(
  engine: Engine,
  loc: Located,
  details: object | null | undefined,
): { cancelRequested: boolean } {
  engine.exec((tx) => {
    loc.a.lastHeartbeatTime = tx.now;
    if (details) loc.a.heartbeatDetails = b64(encodeAs('temporal.api.common.v1.Payloads', details));
    tx.touch(loc.run);
  });
  return { cancelRequested: loc.a.cancelRequestedEventId !== undefined };
}

/** A deadline of an activity passed: retry (start-to-close, heartbeat) or time it out. */
export function activityTimedOut(engine: Engine, tx: Txn, run: Run, a: ActivityState, type: number): void {
  const details = a.heartbeatDetails
    ? decodeAs<temporal.api.common.v1.IPayloads>('temporal.api.common.v1.Payloads', unb64(a.heartbeatDetails))
    : undefined;
  const failure: Failure = {
    message: `activity ${TIMEOUT_NAMES[type]} timeout`,
    source: 'devserver',
    timeoutFailureInfo: { timeoutType: type, lastHeartbeatDetails: details },
  };
  if (type === TimeoutType.START_TO_CLOSE || type === TimeoutType.HEARTBEAT) {
    const next = nextRetry(a, failure, tx.now);
    if ('delay' in next) return retryLater(tx, run, a, failure, next.delay);
    return closeTimedOut(engine, tx, run, a, failure, next.state);
  }
  closeTimedOut(engine, tx, run, a, failure, RetryState.TIMEOUT);
}

function closeTimedOut(
  engine: Engine,
  tx: Txn,
  run: Run,
  a: ActivityState,
  failure: Failure,
  retryState: number,
): void {
  const last = a.lastFailure ? decodeFailure(a.lastFailure) : undefined;
  const f = last ? { ...failure, cause: last } : failure;
  if (a.started) {
    engine.deliverActivityClose(tx, run, a, 'ActivityTaskTimedOut', { failure: f, retryState });
    return;
  }
  // Never started: no ActivityTaskStarted event, startedEventId stays 0.
  delete run.s.activities[a.scheduledEventId];
  engine.deliver(tx, run, 'ActivityTaskTimedOut', {
    failure: f,
    scheduledEventId: a.scheduledEventId,
    startedEventId: 0,
    retryState,
  });
}

/** Deadlines of one activity that are armed now, with the timeout each means. */
export function activityDeadlines(a: ActivityState): { at: number; type: number }[] {
  const out: { at: number; type: number }[] = [];
  if (a.scheduleToCloseMs > 0)
    out.push({ at: a.scheduledTime + a.scheduleToCloseMs, type: TimeoutType.SCHEDULE_TO_CLOSE });
  if (!a.started && a.scheduleToStartMs > 0 && a.scheduleToStartMs !== a.scheduleToCloseMs) {
    out.push({ at: a.readyAt + a.scheduleToStartMs, type: TimeoutType.SCHEDULE_TO_START });
  }
  if (a.started && a.startToCloseMs > 0)
    out.push({ at: a.startedTime! + a.startToCloseMs, type: TimeoutType.START_TO_CLOSE });
  if (a.started && a.heartbeatMs > 0) {
    out.push({ at: (a.lastHeartbeatTime ?? a.startedTime!) + a.heartbeatMs, type: TimeoutType.HEARTBEAT });
  }
  return out;
}
