import { notFound, invalid } from './errors.js';
import {
  decodeEvent,
  decodeHistory,
  encodeEvent,
  encodeHistory,
  attributesOf,
  type EventName,
  makeEvent,
} from './history.js';
import { decodeAs, type HistoryEvent, type temporal } from './proto.js';
import { Run, Txn, b64, unb64 } from './run.js';
import type { SearchAttributeRegistry } from './search-attributes.js';
import { parseRunState, serializeRunState, type ActivityState } from './state.js';
import type { SqliteStore } from './store/sqlite.js';
import { TaskQueues } from './task-queues.js';
import { Deadlines } from './timers.js';
import { msDuration } from './time.js';
import { nextDeadline, processDue } from './due.js';
import type { PendingQuery } from './queries.js';
import { abandonUpdates } from './updates.js';

export type WorkflowTaskRef =
  | { kind: 'wt'; run: Run; scheduledEventId: number; sticky: boolean }
  | { kind: 'query'; query: PendingQuery; offer: number };
export interface ActivityTaskRef {
  run: Run;
  scheduledEventId: number;
  attempt: number;
}
export type PollResponse = Record<string, unknown>;

/**
 * The workflow engine: every run's mutable state, its history in SQLite, matching and
 * deadlines. Each change goes through exec(), which makes it durable before any caller
 * sees its outcome.
 */
export class Engine {
  readonly runs = new Map<string, Run>();
  private readonly current = new Map<string, Run>();
  readonly workflowQueues = new TaskQueues<WorkflowTaskRef, PollResponse>();
  readonly activityQueues = new TaskQueues<ActivityTaskRef, PollResponse>();
  readonly deadlines = new Deadlines<Run>((run) => this.onDeadline(run));
  readonly queries = new Map<string, PendingQuery>();
  private stopped = false;

  constructor(
    readonly store: SqliteStore,
    readonly registry: SearchAttributeRegistry,
  ) {}

  /** Rebuilds memory from the database and resumes every open run's tasks and deadlines. */
  load(): void {
    for (const { rowId, state } of this.store.loadRuns()) {
      const run = new Run(parseRunState(state), rowId);
      this.runs.set(run.key, run);
      this.current.set(currentKey(run.s.namespace, run.s.workflowId), run);
    }
    for (const run of this.runs.values()) if (run.running) this.afterChange(run);
  }

  stop(): void {
    this.flush();
    this.stopped = true;
    this.deadlines.clearAll();
    this.workflowQueues.releaseAll();
    this.activityQueues.releaseAll();
    for (const run of this.runs.values()) for (const w of run.historyWaiters) w();
    for (const q of this.queries.values()) q.fail(new Error('devserver stopping'));
  }

  /**
   * Group commit. exec() changes memory and queues what must be written; everything queued
   * in one turn of the event loop is written in one SQLite transaction on setImmediate, and
   * every answer waits for it (whenDurable). `pending` holds, per run, the history appended
   * since the last flush (encoded batches, concatenated on write); the run's state is written
   * once per flush, whatever number of changes it went through.
   */
  private readonly pending = new Map<Run, { firstEventId: number; blobs: Uint8Array[] }>();
  /** Runs that came to rest in a flush, to have their history compacted once the loop is free. */
  private readonly toCompact = new Set<Run>();
  /** Answers waiting for the scheduled flush; undefined when none is scheduled. */
  private commitWaiters: ((err?: Error) => void)[] | undefined;

  /** Calls back once every change made so far is committed: at once when none is pending. */
  whenDurable(cb: (err?: Error) => void): void {
    if (this.commitWaiters) this.commitWaiters.push(cb);
    else cb();
  }

  /** Writes and commits everything pending, then releases the answers that waited for it. */
  flush(): void {
    const waiters = this.commitWaiters;
    if (!waiters) return;
    this.commitWaiters = undefined;
    const pending = [...this.pending];
    this.pending.clear();
    let error: Error | undefined;
    try {
      this.store.transaction(() => {
        for (const [run, { firstEventId, blobs }] of pending) {
          const json = serializeRunState(run.s);
          if (run.rowId === undefined) run.rowId = this.store.createRun(json);
          else this.store.saveRun(run.rowId, json);
          if (blobs.length > 0) {
            const blob = blobs.length === 1 ? blobs[0]! : Buffer.concat(blobs);
            this.store.appendHistory(run.rowId, firstEventId, blob);
          }
        }
      });
    } catch (err) {
      // Rolled back: memory is now ahead of the database. Nothing of it was acknowledged.
      error = err as Error;
      console.error('devserver: commit failed', err);
    }
    for (const w of waiters) w(error);
    if (error) return;
    for (const [run] of pending) if (atRest(run)) this.toCompact.add(run);
    if (this.toCompact.size > 0) setImmediate(() => this.compact());
  }

  /**
   * Compacts what came to rest, after the answers that waited for the commit have gone out. It
   * changes how history is stored, never what it says, so a crash part way loses nothing.
   */
  private compact(): void {
    for (const run of this.toCompact) {
      this.toCompact.delete(run);
      if (this.stopped || run.rowId === undefined || this.pending.has(run) || !atRest(run)) continue;
      try {
        this.store.compactHistory(run.rowId);
      } catch (err) {
        console.error('devserver: compacting a history failed', err);
      }
    }
  }

  exec<T>(fn: (tx: Txn) => T): T {
    const tx = new Txn();
    const result = fn(tx);
    for (const run of tx.touched) {
      if (run.visibilityChanged) {
        run.s.visibleHistoryLength = run.s.nextEventId - 1;
        run.visibilityChanged = false;
      }
      let p = this.pending.get(run);
      if (!p) {
        p = { firstEventId: 0, blobs: [] };
        this.pending.set(run, p);
      }
      const batch = tx.batches.get(run);
      if (batch && batch.length > 0) {
        const blob = encodeHistory(batch);
        run.s.historySizeBytes += blob.length;
        if (p.blobs.length === 0) p.firstEventId = batch[0]!.eventId;
        p.blobs.push(blob);
      }
    }
    if (this.pending.size > 0 && !this.commitWaiters) {
      this.commitWaiters = [];
      setImmediate(() => this.flush());
    }
    for (const [run, batch] of tx.batches) this.extendTail(run, batch);
    for (const fx of tx.effects) fx();
    for (const run of tx.touched) this.afterChange(run);
    return result;
  }

  /** Adds written events to the run's in-memory tail and drops what no task will need again. */
  private extendTail(run: Run, batch: HistoryEvent[]): void {
    const tail = run.tail;
    if (batch.length === 0) return;
    if (!tail || tail.from + tail.events.length !== batch[0]!.eventId) {
      run.tail = undefined;
      return;
    }
    tail.events.push(...batch);
    const keepFrom = run.s.lastCompletedWtStartedId + 1;
    if (tail.from < keepFrom) {
      tail.events.splice(0, Math.min(keepFrom - tail.from, tail.events.length));
      tail.from = keepFrom;
    }
    // A closed run gets no more tasks: only its close event is still read often (result()).
    if (!run.running && tail.events.length > 1) {
      tail.from += tail.events.length - 1;
      tail.events = tail.events.slice(-1);
    }
  }

  /** Events numbered `from` and later: from the in-memory tail when it reaches back that far. */
  eventsFrom(run: Run, from: number): HistoryEvent[] {
    const tail = run.tail;
    if (tail && tail.from <= from) return tail.events.slice(from - tail.from);
    const all = this.readHistory(run);
    return from <= 1 ? all : all.filter((e) => e.eventId >= from);
  }

  /** The run's last event. */
  lastEvent(run: Run): HistoryEvent | undefined {
    const tail = run.tail;
    if (tail && tail.events.length > 0) return tail.events[tail.events.length - 1];
    const all = this.readHistory(run);
    return all[all.length - 1];
  }

  registerRun(run: Run): void {
    this.runs.set(run.key, run);
    this.current.set(currentKey(run.s.namespace, run.s.workflowId), run);
  }

  currentRun(namespace: string, workflowId: string): Run | undefined {
    const run = this.current.get(currentKey(namespace, workflowId));
    return run && run.s.namespace === namespace ? run : undefined;
  }

  /** The run an execution names: its runId, or the latest run of its workflowId. */
  findRun(namespace: string, exec: temporal.api.common.v1.IWorkflowExecution | null | undefined): Run {
    const workflowId = exec?.workflowId ?? '';
    if (!workflowId) throw invalid('workflowExecution.workflowId is required');
    const run = exec?.runId ? this.runs.get(exec.runId) : this.currentRun(namespace, workflowId);
    if (!run || run.s.namespace !== namespace || run.s.workflowId !== workflowId) {
      throw notFound(
        `workflow execution not found: workflowId=${workflowId}${exec?.runId ? ` runId=${exec.runId}` : ''}`,
      );
    }
    return run;
  }

  /** The run's whole history: what is in the database plus what the next flush writes. */
  readHistory(run: Run): HistoryEvent[] {
    const stored = run.rowId === undefined ? [] : [this.store.readHistory(run.rowId)];
    const unwritten = this.pending.get(run)?.blobs ?? [];
    return decodeHistory(Buffer.concat([...stored, ...unwritten]));
  }

  // ---- workflow tasks and events --------------------------------------------------------

  scheduleWorkflowTask(tx: Txn, run: Run, attempt = 1, readyAt = tx.now): void {
    if (run.s.wt || !run.running) return;
    const scheduledEventId = tx.append(run, 'WorkflowTaskScheduled', {
      taskQueue: { name: run.s.taskQueue, kind: 1 },
      startToCloseTimeout: msDuration(run.s.workflowTaskTimeoutMs),
      attempt,
    });
    run.s.wt = { scheduledEventId, attempt, scheduledTime: tx.now, readyAt };
  }

  /** Adds an event from outside the workflow: buffered while a task runs, else written and a task scheduled. */
  deliver(tx: Txn, run: Run, name: EventName, attrs: object): void {
    if (run.s.wt?.startedEventId) {
      run.s.buffered.push({ event: b64(encodeEvent(makeEvent(name, attrs, 0, tx.now))) });
      tx.touch(run);
      return;
    }
    tx.append(run, name, attrs);
    this.scheduleWorkflowTask(tx, run);
  }

  /** Writes (or buffers) ActivityTaskStarted followed by the activity's close event. */
  deliverActivityClose(
    tx: Txn,
    run: Run,
    a: ActivityState,
    name: EventName,
    attrs: Record<string, unknown>,
  ): void {
    delete run.s.activities[a.scheduledEventId];
    const started = {
      scheduledEventId: a.scheduledEventId,
      identity: a.startedIdentity ?? '',
      requestId: a.startedRequestId ?? '',
      attempt: a.attempt,
      lastFailure: a.lastFailure ? decodeFailure(a.lastFailure) : undefined,
    };
    if (run.s.wt?.startedEventId) {
      run.s.buffered.push({ event: b64(encodeEvent(makeEvent('ActivityTaskStarted', started, 0, tx.now))) });
      run.s.buffered.push({
        event: b64(
          encodeEvent(makeEvent(name, { ...attrs, scheduledEventId: a.scheduledEventId }, 0, tx.now)),
        ),
        linkStarted: true,
      });
      tx.touch(run);
      return;
    }
    const startedEventId = tx.append(run, 'ActivityTaskStarted', started);
    tx.append(run, name, { ...attrs, scheduledEventId: a.scheduledEventId, startedEventId });
    this.scheduleWorkflowTask(tx, run);
  }

  /** Writes the events buffered during a workflow task; true when there were any. */
  flushBuffered(tx: Txn, run: Run): boolean {
    const buffered = run.s.buffered;
    if (buffered.length === 0) return false;
    run.s.buffered = [];
    let lastId = 0;
    for (const b of buffered) {
      const event = decodeEvent(unb64(b.event));
      if (b.linkStarted) attributesOf(event).startedEventId = lastId;
      lastId = tx.appendEvent(run, event);
    }
    return true;
  }

  /** Ends a run; pending work is dropped and waiting queries go to the worker as query tasks. */
  closeRun(tx: Txn, run: Run, status: number, name: EventName, attrs: object): number {
    const id = tx.append(run, name, attrs);
    run.s.status = status;
    run.s.closeTime = tx.now;
    run.visibilityChanged = true;
    run.s.wt = undefined;
    run.s.activities = {};
    run.s.timers = {};
    run.s.buffered = [];
    tx.after(() => this.rerouteQueries(run));
    tx.after(() => abandonUpdates(run));
    return id;
  }

  /** Re-routes queries that were waiting on a workflow task that has now ended. */
  rerouteQueries(run: Run): void {
    const pending = [...run.attachedQueries.values(), ...run.heldQueries];
    run.attachedQueries.clear();
    run.heldQueries = [];
    for (const q of pending) q.route();
    const task = run.queryTask;
    task?.leaveSticky();
    if (task && task.taken && !task.done)
      setTimeout(() => this.resendQuery(run, task), QUERY_RESEND_MS).unref();
  }

  /**
   * The SDK worker can drop a query-only task that raced a workflow task of the same run (seen
   * when that task closed the run), which left the caller waiting out the query timeout. One still
   * unanswered a while after such a task ended goes out again; an answer to either copy settles it.
   */
  /** A worker went away: the query tasks it took and never answered go out again. */
  resendQueriesTakenBy(identity: string): void {
    for (const q of [...this.queries.values()])
      if (q.taken && !q.done && q.takenBy === identity) this.resendQuery(q.run, q);
  }

  private resendQuery(run: Run, task: PendingQuery): void {
    if (this.stopped || task.done || run.queryTask !== task) return;
    run.queryTask = undefined;
    for (const q of [task, ...run.queuedQueries.splice(0)]) q.route();
  }

  // ---- after a change: matching, deadlines, history watchers ---------------------------

  private afterChange(run: Run): void {
    if (this.stopped) return;
    const now = Date.now();
    const s = run.s;
    if (run.running) {
      const wt = s.wt;
      if (wt && !wt.startedEventId && wt.readyAt <= now && !run.offered.has(`w${wt.scheduledEventId}`)) {
        run.offered.add(`w${wt.scheduledEventId}`);
        this.offerWorkflowTask(run, wt.scheduledEventId);
      }
      for (const a of Object.values(s.activities)) {
        const key = `a${a.scheduledEventId}.${a.attempt}`;
        if (!a.started && a.readyAt <= now && !run.offered.has(key)) {
          run.offered.add(key);
          this.activityQueues
            .get(s.namespace, a.taskQueue)
            .offer({ run, scheduledEventId: a.scheduledEventId, attempt: a.attempt });
        }
      }
    } else {
      run.offered.clear();
    }
    this.deadlines.set(run, run.running ? nextDeadline(run) : undefined);
    for (const w of [...run.historyWaiters]) w();
  }

  /**
   * Hands a scheduled workflow task to matching: to the worker's sticky queue when it asked
   * for one (it has the run cached and gets only new events), falling back to the normal
   * queue if that worker does not take it within the sticky schedule-to-start timeout.
   */
  private offerWorkflowTask(run: Run, scheduledEventId: number): void {
    const sticky = run.sticky;
    if (!sticky) {
      this.workflowQueues
        .get(run.s.namespace, run.s.taskQueue)
        .offer({ kind: 'wt', run, scheduledEventId, sticky: false });
      return;
    }
    this.workflowQueues
      .get(run.s.namespace, sticky.queue)
      .offer({ kind: 'wt', run, scheduledEventId, sticky: true });
    setTimeout(() => {
      const wt = run.s.wt;
      if (
        this.stopped ||
        !wt ||
        wt.startedEventId ||
        wt.scheduledEventId !== scheduledEventId ||
        run.sticky !== sticky
      )
        return;
      run.sticky = undefined;
      this.offerWorkflowTask(run, scheduledEventId);
    }, sticky.scheduleToStartMs).unref();
  }

  /** A worker shut down: its sticky runs go back to the normal queue. */
  dropStickyQueue(namespace: string, queue: string): void {
    for (const run of this.runs.values()) {
      if (run.s.namespace !== namespace || run.sticky?.queue !== queue) continue;
      run.sticky = undefined;
      const wt = run.s.wt;
      if (run.running && wt && !wt.startedEventId && run.offered.has(`w${wt.scheduledEventId}`)) {
        this.offerWorkflowTask(run, wt.scheduledEventId);
      }
      run.queryTask?.leaveSticky();
    }
  }

  private onDeadline(run: Run): void {
    if (this.stopped || !run.running) return;
    try {
      this.exec((tx) => {
        processDue(this, tx, run);
        tx.touch(run);
      });
    } catch (err) {
      console.error('devserver: deadline processing failed', err);
    }
  }
}

/** How long a query-only task may stay unanswered after a workflow task of its run ended. */
const QUERY_RESEND_MS = 2_000;

const currentKey = (namespace: string, workflowId: string) => `${namespace}\u0000${workflowId}`;

export function decodeFailure(s: string): temporal.api.failure.v1.IFailure {
  return decodeAs('temporal.api.failure.v1.Failure', unb64(s));
}

/** Closed, or waiting only for a signal or a timer: no task will read its history soon. */
function atRest(run: Run): boolean {
  return !run.running || (!run.s.wt && Object.keys(run.s.activities).length === 0);
}
