import { status } from '@grpc/grpc-js';
import type { Engine, PollResponse } from './engine.js';
import { RpcError, invalid } from './errors.js';
import { Status, type temporal } from './proto.js';
import { newId, type Run } from './run.js';
import { msTimestamp } from './time.js';
import { encodeToken } from './tokens.js';

type QueryResult = { queryResult?: object | null };

/** How long a query may wait for a worker to answer before the caller gets DEADLINE_EXCEEDED. */
const QUERY_TIMEOUT_MS = 60_000;

/**
 * A query in flight. Queries are never persisted: they go with the next workflow task if
 * one is scheduled, wait for the running task to end, or else go to a worker as a query-only
 * task. That task goes to the sticky queue of the worker that has the run cached, with no
 * history to replay, and to the normal queue with the full history when there is no such worker
 * or it does not take the task within the sticky schedule-to-start timeout (this also covers
 * closed workflows).
 */
export class PendingQuery {
  readonly id = newId();
  done = false;
  /** Handed to a worker as a query-only task. */
  taken = false;
  /** The identity of the worker that took it. */
  takenBy: string | undefined;
  /** Counts the times it was offered; a task queue entry from an earlier offer is stale. */
  offers = 0;
  /** The sticky queue its current offer went to, while untaken. */
  private stickyQueue: string | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly engine: Engine,
    readonly run: Run,
    readonly query: temporal.api.query.v1.IWorkflowQuery,
    private readonly onResult: (r: QueryResult) => void,
    private readonly onError: (e: unknown) => void,
  ) {
    engine.queries.set(this.id, this);
    this.timer = setTimeout(
      () =>
        this.fail(
          new RpcError(status.DEADLINE_EXCEEDED, `query ${query.queryType} timed out: no worker answered`),
        ),
      QUERY_TIMEOUT_MS,
    );
    this.timer.unref();
  }

  route(): void {
    if (this.done) return;
    const { run } = this;
    if (run.running && run.s.wt) {
      if (run.s.wt.startedEventId) run.heldQueries.push(this);
      else run.attachedQueries.set(this.id, this);
      return;
    }
    // A worker given a second query-only task for a run whose first it has not answered drops
    // one of them, so queries to one run go out one at a time.
    if (run.queryTask && !run.queryTask.done) {
      run.queuedQueries.push(this);
      return;
    }
    run.queryTask = this;
    // A closed run is no longer in any worker's cache.
    this.offer(run.running ? run.sticky : undefined);
  }

  /** Whether its current offer is to the sticky queue the run still has. */
  stickyOffer(): boolean {
    return this.stickyQueue !== undefined && this.run.sticky?.queue === this.stickyQueue;
  }

  /**
   * Offered to a sticky queue and not taken: to the normal queue instead, once the run has lost
   * that queue (its worker went away, a task failed) or, with `timedOut`, once the worker has let
   * the sticky schedule-to-start timeout pass.
   */
  leaveSticky(timedOut = false): void {
    if (this.done || this.taken || this.stickyQueue === undefined) return;
    if (!timedOut && this.stickyOffer()) return;
    this.offer(undefined);
  }

  private offer(sticky: Run['sticky']): void {
    const { run, engine } = this;
    const offer = ++this.offers;
    this.taken = false;
    this.takenBy = undefined;
    this.stickyQueue = sticky?.queue;
    engine.workflowQueues
      .get(run.s.namespace, sticky?.queue ?? run.s.taskQueue)
      .offer({ kind: 'query', query: this, offer });
    if (sticky) {
      setTimeout(() => {
        if (this.offers === offer) this.leaveSticky(true);
      }, sticky.scheduleToStartMs).unref();
    }
  }

  answer(
    resultType: number,
    answer: object | null | undefined,
    errorMessage: string | null | undefined,
  ): void {
    if (resultType === 1) this.finish(() => this.onResult({ queryResult: answer ?? { payloads: [] } }));
    else this.fail(invalid(errorMessage || 'query failed'));
  }

  fail(err: unknown): void {
    this.finish(() => this.onError(err));
  }

  private finish(fn: () => void): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.engine.queries.delete(this.id);
    this.run.attachedQueries.delete(this.id);
    this.run.queuedQueries = this.run.queuedQueries.filter((q) => q !== this);
    fn();
    if (this.run.queryTask === this) {
      this.run.queryTask = undefined;
      this.run.queuedQueries.shift()?.route();
    }
  }
}

/**
 * A query-only task, answered by RespondQueryTaskCompleted: on a sticky queue, the events since the
 * worker's last task (it has the run cached); on the normal queue, the full history to replay.
 */
export function takeQuery(
  engine: Engine,
  q: PendingQuery,
  offer: number,
  identity: string,
): PollResponse | null {
  if (q.done || offer !== q.offers) return null;
  const { run } = q;
  const sticky = q.stickyOffer();
  q.taken = true;
  q.takenBy = identity;
  const now = Date.now();
  const events = engine.eventsFrom(run, sticky ? run.s.lastCompletedWtStartedId + 1 : 1);
  return {
    taskToken: encodeToken({ k: 'q', q: q.id }),
    workflowExecution: { workflowId: run.s.workflowId, runId: run.s.runId },
    workflowType: { name: run.s.workflowType },
    previousStartedEventId: run.s.lastCompletedWtStartedId,
    startedEventId: run.s.lastCompletedWtStartedId,
    attempt: 1,
    history: { events },
    query: q.query,
    workflowExecutionTaskQueue: { name: run.s.taskQueue, kind: 1 },
    scheduledTime: msTimestamp(now),
    startedTime: msTimestamp(now),
  };
}

export function queryWorkflow(
  engine: Engine,
  req: temporal.api.workflowservice.v1.IQueryWorkflowRequest,
): Promise<object> {
  const run = engine.findRun(req.namespace || 'default', req.execution);
  if (!req.query?.queryType) throw invalid('query.queryType is required');
  const reject = req.queryRejectCondition ?? 0;
  if (!run.running && (reject === 2 || (reject === 3 && run.s.status !== Status.COMPLETED))) {
    return Promise.resolve({ queryRejected: { status: run.s.status } });
  }
  return new Promise((resolve, rejectP) => {
    new PendingQuery(engine, run, req.query!, resolve, rejectP).route();
  });
}
