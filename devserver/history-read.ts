import type { Engine } from './engine.js';
import { invalid } from './errors.js';
import { CLOSE_EVENT_TYPES } from './history.js';
import type { temporal, HistoryEvent } from './proto.js';
import type { Run } from './run.js';

type Request = temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryRequest;

/** How long a waitNewEvent request is held before answering with nothing new. */
const LONG_POLL_MS = 30_000;

interface PageToken {
  r: string;
  n: number;
}

function readToken(bytes: Uint8Array | null | undefined): PageToken | undefined {
  if (!bytes || bytes.length === 0) return undefined;
  try {
    const t = JSON.parse(Buffer.from(bytes).toString('utf8')) as PageToken;
    if (typeof t.r === 'string' && Number.isInteger(t.n)) return t;
  } catch {
    // fall through to the error below
  }
  throw invalid('nextPageToken is malformed');
}

const token = (t: PageToken) => Buffer.from(JSON.stringify(t));

/** Resolves once the run has an event numbered `from` or later (or closes), or after the hold. */
function waitFor(
  engine: Engine,
  run: Run,
  ready: () => boolean,
  onCancel: (cb: () => void) => void,
): Promise<void> {
  if (ready()) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      run.historyWaiters.delete(check);
      resolve();
    };
    const check = () => {
      if (ready()) done();
    };
    const timer = setTimeout(done, LONG_POLL_MS);
    run.historyWaiters.add(check);
    onCancel(done);
  });
}

export async function getHistory(
  engine: Engine,
  req: Request,
  onCancel: (cb: () => void) => void,
): Promise<object> {
  const namespace = req.namespace || 'default';
  const pageToken = readToken(req.nextPageToken);
  const run = engine.findRun(
    namespace,
    pageToken ? { workflowId: req.execution?.workflowId, runId: pageToken.r } : req.execution,
  );
  const wait = req.waitNewEvent === true;

  if (req.historyEventFilterType === 2) {
    if (wait) await waitFor(engine, run, () => !run.running, onCancel);
    if (run.running)
      return { history: { events: [] }, nextPageToken: wait ? token({ r: run.s.runId, n: 0 }) : undefined };
    const last = engine.lastEvent(run);
    return { history: { events: last && CLOSE_EVENT_TYPES.has(last.eventType) ? [last] : [] } };
  }

  const from = pageToken?.n ?? 1;
  if (wait) await waitFor(engine, run, () => run.s.nextEventId > from || !run.running, onCancel);
  const pageSize = req.maximumPageSize && req.maximumPageSize > 0 ? req.maximumPageSize : 1000;
  const all: HistoryEvent[] = engine.eventsFrom(run, from);
  const events = all.slice(0, pageSize);
  const nextFrom = events.length > 0 ? events[events.length - 1]!.eventId + 1 : from;
  const more = all.length > events.length || (wait && run.running);
  return { history: { events }, nextPageToken: more ? token({ r: run.s.runId, n: nextFrom }) : undefined };
}

/**
 * GetWorkflowExecutionHistoryReverse: newest events first, a page at a time. A page of one is the
 * run's last event, read from memory for a run that is active.
 */
export function getHistoryReverse(
  engine: Engine,
  req: temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryReverseRequest,
): object {
  const namespace = req.namespace || 'default';
  const pageToken = readToken(req.nextPageToken);
  const run = engine.findRun(
    namespace,
    pageToken ? { workflowId: req.execution?.workflowId, runId: pageToken.r } : req.execution,
  );
  const pageSize = req.maximumPageSize && req.maximumPageSize > 0 ? req.maximumPageSize : 1000;
  const upTo = pageToken?.n ?? run.s.nextEventId - 1;
  const from = Math.max(1, upTo - pageSize + 1);
  const last = engine.lastEvent(run);
  const events =
    pageSize === 1 && !pageToken && last
      ? [last]
      : engine
          .eventsFrom(run, from)
          .filter((e) => e.eventId <= upTo)
          .reverse();
  return {
    history: { events },
    nextPageToken: from > 1 ? token({ r: run.s.runId, n: from - 1 }) : undefined,
  };
}
