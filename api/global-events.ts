import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import type { RunEvent } from '../protocol/index.js';
import type { ApiOptions } from './context.js';
import { getRunEvents } from '../client/index.js';
import { describeRun, listExecutions, listQuery } from './temporal-reads.js';

interface Resume {
  at: number;
  runId: string;
  id: number;
}

/** Runs looked at per poll: the newest first, as Temporal lists them. */
const LIST_LIMIT = 500;

/**
 * A running run whose listed history length has not changed is described every this many polls: a
 * real cluster's visibility store reports a length as of the run's last upsert, and describing
 * reads it from the run itself. Neither needs a worker.
 */
const RECHECK_POLLS = 5;

/**
 * A run's log is read by a query, which needs a worker; bounded, so that a run nobody can answer
 * for (no worker up) holds back the other runs' events only this long. It is read again next poll.
 */
const READ_WAIT_MS = 2_000;

interface Watched {
  /** The last event id delivered; undefined until the log was first read. */
  cursor: number | undefined;
  /** The history length the list showed, and the one last known (the list may lag behind). */
  listedLength: number;
  historyLength: number;
  /** The poll at which the run was last read or described. */
  checkedAt: number;
}

/**
 * Every run's events as they happen, from Temporal alone: each poll lists the runs (the list
 * filter) and reads a run's log only once its history has grown, so quiet runs (a thousand paused
 * approvals) cost the worker nothing, however many inboxes are open. A closed run's last events
 * come from its result. What it remembers lives only as long as this subscriber.
 */
export async function* globalEvents(
  options: ApiOptions,
  resume: Resume | undefined,
  signal: AbortSignal,
): AsyncGenerator<RunEvent> {
  const { client } = options;
  const since = resume?.at ?? Date.now();
  const watched = new Map<string, Watched>();
  const finished = new Set<string>();
  // Events from before this subscriber (or before the event it resumes after) are not its own.
  const fresh = (event: RunEvent) =>
    Date.parse(event.at) >= since && !(resume && event.runId === resume.runId && event.id <= resume.id);
  const unseen = (known: Watched | undefined) => (event: RunEvent) =>
    known?.cursor !== undefined ? event.id > known.cursor : fresh(event);
  for (let poll = 0; !signal.aborted; poll++) {
    const infos = await listExecutions(client, listQuery({}), LIST_LIMIT);
    for (const info of infos) {
      const runId = info.workflowId;
      const known = watched.get(runId);
      if (info.status.name === 'RUNNING') {
        // A run already there when a fresh subscriber came has nothing to say yet; nor has one, to
        // a subscriber resuming, whose history has not moved since that subscriber left.
        if (
          !known &&
          poll === 0 &&
          (!resume || (await lastChange(client, options.namespace, runId)) < since)
        ) {
          const length = info.historyLength;
          watched.set(runId, {
            cursor: undefined,
            listedLength: length,
            historyLength: length,
            checkedAt: poll,
          });
          continue;
        }
        let historyLength = info.historyLength;
        if (known && info.historyLength === known.listedLength) {
          if (poll - known.checkedAt < RECHECK_POLLS) continue;
          known.checkedAt = poll;
          const described = await describedLength(client, runId);
          if (described === undefined || described === known.historyLength) continue;
          historyLength = described;
        }
        const events = await readEvents(client, runId, known?.cursor, false);
        // Not readable now (no worker up): read again on the next poll.
        if (!events) continue;
        yield* events.filter(unseen(known));
        watched.set(runId, {
          cursor: events.at(-1)?.id ?? known?.cursor,
          listedLength: info.historyLength,
          historyLength,
          checkedAt: poll,
        });
      } else if (!finished.has(runId) && (known || (info.closeTime?.getTime() ?? 0) >= since)) {
        finished.add(runId);
        watched.delete(runId);
        const events = (await readEvents(client, runId, known?.cursor, true)) ?? [];
        yield* events.filter(unseen(known));
      }
    }
    await sleep(options.listPollMs ?? 1_000, undefined, { signal }).catch(() => undefined);
  }
}

async function readEvents(
  client: Client,
  runId: string,
  cursor: number | undefined,
  closed: boolean,
): Promise<RunEvent[] | undefined> {
  return client
    .withDeadline(Date.now() + READ_WAIT_MS, () => getRunEvents(client, runId, cursor ?? 0, closed))
    .catch(() => undefined);
}

function describedLength(client: Client, runId: string): Promise<number | undefined> {
  return describeRun(client, runId).then(
    (description) => description.historyLength,
    () => undefined,
  );
}

/**
 * When the run's history last grew: the time of its last event, a server-only read (no worker).
 * Unknown counts as now, so the run is read.
 */
async function lastChange(client: Client, namespace: string, runId: string): Promise<number> {
  try {
    const { history } = await client.workflowService.getWorkflowExecutionHistoryReverse({
      namespace,
      execution: { workflowId: runId },
      maximumPageSize: 1,
    });
    const time = history?.events?.[0]?.eventTime;
    return time ? Number(time.seconds ?? 0) * 1000 + Math.floor((time.nanos ?? 0) / 1e6) : Date.now();
  } catch {
    return Date.now();
  }
}
