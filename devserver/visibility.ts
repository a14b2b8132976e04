import type { Engine } from './engine.js';
import { invalid } from './errors.js';
import { compileFilter, type Row, type Value } from './list-filter.js';
import { decodeAs, Status, type temporal } from './proto.js';
import { unb64, type Run } from './run.js';
import { decodeAttrValue } from './search-attributes.js';
import { msDuration, msTimestamp } from './time.js';

/** Execution statuses by the names list filters spell them with. */
export const STATUS_NAMES: Record<number, string> = {
  [Status.RUNNING]: 'Running',
  [Status.COMPLETED]: 'Completed',
  [Status.FAILED]: 'Failed',
  [Status.CANCELED]: 'Canceled',
  [Status.TERMINATED]: 'Terminated',
  [Status.CONTINUED_AS_NEW]: 'ContinuedAsNew',
  [Status.TIMED_OUT]: 'TimedOut',
};

/** The history length a list shows: as of the run's last visibility update. */
const listedLength = (s: Run['s']) => s.visibleHistoryLength ?? s.nextEventId - 1;

export function executionInfo(run: Run, listed = false): object {
  const s = run.s;
  const memo = run.memo;
  const sa = run.searchAttributes;
  return {
    execution: { workflowId: s.workflowId, runId: s.runId },
    type: { name: s.workflowType },
    startTime: msTimestamp(s.startTime),
    closeTime: s.closeTime !== undefined ? msTimestamp(s.closeTime) : undefined,
    status: s.status,
    historyLength: listed ? listedLength(s) : s.nextEventId - 1,
    executionTime: msTimestamp(s.executionTime),
    memo: { fields: memo },
    searchAttributes: { indexedFields: sa },
    taskQueue: s.taskQueue,
    historySizeBytes: s.historySizeBytes,
    executionDuration: s.closeTime !== undefined ? msDuration(s.closeTime - s.executionTime) : undefined,
    firstRunId: s.firstRunId,
    rootExecution: { workflowId: s.workflowId, runId: s.runId },
    stateTransitionCount: s.nextEventId - 1,
  };
}

export function describeWorkflow(
  engine: Engine,
  req: temporal.api.workflowservice.v1.IDescribeWorkflowExecutionRequest,
): object {
  const run = engine.findRun(req.namespace || 'default', req.execution);
  const s = run.s;
  const pendingActivities = Object.values(s.activities).map((a) => ({
    activityId: a.activityId,
    activityType: { name: a.activityType },
    state: a.cancelRequestedEventId ? 3 : a.started ? 2 : 1,
    heartbeatDetails: a.heartbeatDetails
      ? decodeAs('temporal.api.common.v1.Payloads', unb64(a.heartbeatDetails))
      : undefined,
    lastHeartbeatTime: a.lastHeartbeatTime ? msTimestamp(a.lastHeartbeatTime) : undefined,
    lastStartedTime: a.startedTime ? msTimestamp(a.startedTime) : undefined,
    attempt: a.attempt,
    maximumAttempts: a.retry.maxAttempts,
    scheduledTime: msTimestamp(a.readyAt),
    expirationTime: a.scheduleToCloseMs > 0 ? msTimestamp(a.scheduledTime + a.scheduleToCloseMs) : undefined,
    lastFailure: a.lastFailure
      ? decodeAs('temporal.api.failure.v1.Failure', unb64(a.lastFailure))
      : undefined,
    lastWorkerIdentity: a.startedIdentity ?? '',
  }));
  const wt = s.wt;
  return {
    executionConfig: {
      taskQueue: { name: s.taskQueue, kind: 1 },
      workflowExecutionTimeout: msDuration(s.executionTimeoutMs),
      workflowRunTimeout: msDuration(s.runTimeoutMs),
      defaultWorkflowTaskTimeout: msDuration(s.workflowTaskTimeoutMs),
    },
    workflowExecutionInfo: executionInfo(run),
    pendingActivities,
    pendingWorkflowTask: wt
      ? {
          state: wt.startedEventId ? 2 : 1,
          scheduledTime: msTimestamp(wt.scheduledTime),
          originalScheduledTime: msTimestamp(wt.scheduledTime),
          startedTime: wt.startedTime ? msTimestamp(wt.startedTime) : undefined,
          attempt: wt.attempt,
        }
      : undefined,
  };
}

/** A run seen through the list filter: system attributes from its state, custom ones from upserts. */
function rowOf(run: Run): Row {
  const s = run.s;
  return {
    get(name: string): Value {
      switch (name) {
        case 'WorkflowId':
          return s.workflowId;
        case 'RunId':
          return s.runId;
        case 'WorkflowType':
          return s.workflowType;
        case 'ExecutionStatus':
          return STATUS_NAMES[s.status] ?? null;
        case 'TaskQueue':
          return s.taskQueue;
        case 'StartTime':
          return s.startTime;
        case 'CloseTime':
          return s.closeTime ?? null;
        case 'ExecutionTime':
          return s.executionTime;
        case 'ExecutionDuration':
          return s.closeTime !== undefined ? (s.closeTime - s.executionTime) * 1e6 : null;
        case 'HistoryLength':
          return listedLength(s);
        case 'HistorySizeBytes':
          return s.historySizeBytes;
      }
      const p = run.searchAttributes[name];
      return p ? (decodeAttrValue(p) as Value) : null;
    },
  };
}

function matching(engine: Engine, namespace: string, query: string | null | undefined) {
  const filter = compileFilter(query ?? '', (name) => engine.registry.typeOf(namespace, name));
  const runs = [...engine.runs.values()].filter(
    (r) => r.s.namespace === namespace && filter.matches(rowOf(r)),
  );
  return { runs, order: filter.order };
}

/** Where a run stands in a list's order; a page token is the place of a page's last run. */
interface Place {
  values: Value[];
  runId: string;
}

function readPlace(token: Uint8Array, keys: number): Place {
  let place: unknown;
  try {
    place = JSON.parse(Buffer.from(token).toString('utf8'));
  } catch {
    throw invalid('nextPageToken is malformed');
  }
  const { values, runId } = (place ?? {}) as Partial<Place>;
  if (!Array.isArray(values) || values.length !== keys || typeof runId !== 'string')
    throw invalid('nextPageToken is malformed');
  return { values, runId };
}

export function listWorkflows(
  engine: Engine,
  req: temporal.api.workflowservice.v1.IListWorkflowExecutionsRequest,
): object {
  const namespace = req.namespace || 'default';
  const { runs, order } = matching(engine, namespace, req.query);
  // Default order as Temporal's: open runs first, then most recently closed, then most recently started.
  const keys =
    order.length > 0
      ? order
      : [
          { name: 'CloseTime', desc: true },
          { name: 'StartTime', desc: true },
        ];
  // Each run's place in the order: its sort values, then its run id to break ties.
  const placeOf = (run: Run): Place => {
    const row = rowOf(run);
    return { values: keys.map((k) => row.get(k.name)), runId: run.s.runId };
  };
  const compare = (a: Place, b: Place): number => {
    for (const [i, k] of keys.entries()) {
      // An open run has no close time yet: it sorts as if it closed last.
      const va = a.values[i] ?? (k.name === 'CloseTime' ? Infinity : null);
      const vb = b.values[i] ?? (k.name === 'CloseTime' ? Infinity : null);
      if (va === vb) continue;
      if (va === null) return 1;
      if (vb === null) return -1;
      const c = va < vb ? -1 : 1;
      return k.desc ? -c : c;
    }
    return a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0;
  };
  const places = new Map(runs.map((r) => [r, placeOf(r)]));
  runs.sort((a, b) => compare(places.get(a)!, places.get(b)!));
  const pageSize = req.pageSize && req.pageSize > 0 ? req.pageSize : 1000;
  // Keyset paging, as Temporal's SQL visibility does: a page starts after the last run of the one
  // before, wherever that now is, so runs that start, close or leave the filter meanwhile neither
  // repeat nor push others out of sight.
  const after = req.nextPageToken?.length ? readPlace(req.nextPageToken, keys.length) : undefined;
  const rest = after ? runs.filter((run) => compare(places.get(run)!, after) > 0) : runs;
  const page = rest.slice(0, pageSize);
  const next =
    rest.length > pageSize ? Buffer.from(JSON.stringify(places.get(page.at(-1)!)), 'utf8') : undefined;
  return { executions: page.map((run) => executionInfo(run, true)), nextPageToken: next };
}

export function countWorkflows(
  engine: Engine,
  req: temporal.api.workflowservice.v1.ICountWorkflowExecutionsRequest,
): object {
  const namespace = req.namespace || 'default';
  const query = req.query ?? '';
  const group = /\bGROUP\s+BY\s+ExecutionStatus\s*$/i.exec(query);
  const { runs } = matching(engine, namespace, group ? query.slice(0, group.index) : query);
  if (!group) return { count: runs.length };
  const counts = new Map<number, number>();
  for (const r of runs) counts.set(r.s.status, (counts.get(r.s.status) ?? 0) + 1);
  return {
    count: runs.length,
    groups: [...counts].map(([status, count]) => ({
      groupValues: [
        {
          metadata: { encoding: Buffer.from('json/plain') },
          data: Buffer.from(JSON.stringify(STATUS_NAMES[status])),
        },
      ],
      count,
    })),
  };
}
