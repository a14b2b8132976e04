import { activityDeadlines, activityTimedOut } from './activities.js';
import type { Engine } from './engine.js';
import { RetryState, Status } from './proto.js';
import type { Run, Txn } from './run.js';
import { workflowTaskTimedOut } from './workflow-tasks.js';

/** The earliest moment something must happen to this run without outside input. */
export function nextDeadline(run: Run): number | undefined {
  const s = run.s;
  let min = Infinity;
  const consider = (t: number | undefined) => {
    if (t !== undefined && t < min) min = t;
  };
  consider(s.runExpiration);
  consider(s.executionExpiration);
  for (const t of Object.values(s.timers)) consider(t.fireTime);
  if (s.wt?.startedEventId) consider(s.wt.startedTime! + s.workflowTaskTimeoutMs);
  else if (s.wt && !run.offered.has(`w${s.wt.scheduledEventId}`)) consider(s.wt.readyAt);
  for (const a of Object.values(s.activities)) {
    for (const d of activityDeadlines(a)) consider(d.at);
    if (!a.started && !run.offered.has(`a${a.scheduledEventId}.${a.attempt}`)) consider(a.readyAt);
  }
  return min === Infinity ? undefined : min;
}

/** Applies everything that has come due: workflow timeouts, timers, activity and task timeouts. */
export function processDue(engine: Engine, tx: Txn, run: Run): void {
  const s = run.s;
  const now = tx.now;
  if (
    (s.runExpiration !== undefined && s.runExpiration <= now) ||
    (s.executionExpiration !== undefined && s.executionExpiration <= now)
  ) {
    engine.closeRun(tx, run, Status.TIMED_OUT, 'WorkflowExecutionTimedOut', {
      retryState: RetryState.TIMEOUT,
    });
    return;
  }
  const dueTimers = Object.values(s.timers)
    .filter((t) => t.fireTime <= now)
    .sort((a, b) => a.fireTime - b.fireTime || a.startedEventId - b.startedEventId);
  for (const t of dueTimers) {
    delete s.timers[t.timerId];
    engine.deliver(tx, run, 'TimerFired', { timerId: t.timerId, startedEventId: t.startedEventId });
  }
  for (const a of Object.values(s.activities)) {
    const due = activityDeadlines(a)
      .filter((d) => d.at <= now)
      .sort((x, y) => x.at - y.at)[0];
    if (due) activityTimedOut(engine, tx, run, a, due.type);
  }
  if (s.wt?.startedEventId && s.wt.startedTime! + s.workflowTaskTimeoutMs <= now) {
    workflowTaskTimedOut(engine, tx, run);
  }
}
