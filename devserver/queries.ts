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
 * one is scheduled, wait for the running task to end, or else go to the worker as a
 * query-only task carrying the full history (this also covers closed workflows).
 */
export class PendingQuery {
  readonly id = newId();
  done = false;
  /** Handed to a worker as a query-only task. */
  taken = false;
  /** The identity of the worker that took it. */
  takenBy: string | undefined;
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
    this.engine.workflowQueues.get(run.s.namespace, run.s.taskQueue).offer({ kind: 'query', query: this });
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

/** A query-only task: the full history plus the query, answered by RespondQueryTaskCompleted. */
export function takeQuery(engine: Engine, q: PendingQuery, identity: string): PollResponse | null {
  if (q.done) return null;
  q.taken = true;
  q.takenBy = identity;
  const { run } = q;
  const now = Date.now();
  const events = engine.eventsFrom(run, 1);
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
