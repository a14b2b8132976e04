import { setTimeout as sleep } from 'node:timers/promises';
import type { RunEvent } from '../protocol/index.js';
import type { ApiOptions } from './context.js';
import { getRunEvents } from '../client/index.js';
import { listExecutions, listQuery } from './temporal-reads.js';

interface Resume {
  at: number;
  runId: string;
  id: number;
}

/** Runs looked at per poll: the newest first, as Temporal lists them. */
const LIST_LIMIT = 500;

/**
 * A run whose listed history length has not changed is read again after this long anyway: a real
 * cluster's visibility store may report a running workflow's length as of its last upsert.
 */
const REREAD_MS = 5_000;

/**
 * Every run's events as they happen, from Temporal alone: each poll lists the runs (the list
 * filter), re-reads a run's log only when its history has grown, and reads a closed run's last
 * events once. What it remembers (cursors per run) lives only as long as this subscriber.
 */
export async function* globalEvents(
  options: ApiOptions,
  resume: Resume | undefined,
  signal: AbortSignal,
): AsyncGenerator<RunEvent> {
  const { client } = options;
  const since = resume?.at ?? Date.now();
  const cursors = new Map<string, { cursor: number; historyLength: number; readAt: number }>();
  const finished = new Set<string>();
  const fresh = (event: RunEvent) =>
    !resume ||
    (Date.parse(event.at) >= resume.at && !(event.runId === resume.runId && event.id <= resume.id));
  let first = true;
  while (!signal.aborted) {
    const infos = await listExecutions(client, listQuery({}), LIST_LIMIT);
    for (const info of infos) {
      const runId = info.workflowId;
      const known = cursors.get(runId);
      if (info.status.name === 'RUNNING') {
        const unchanged = known && info.historyLength > 0 && info.historyLength === known.historyLength;
        if (unchanged && Date.now() - known.readAt < REREAD_MS) continue;
        // A run that cannot be read now (its worker is away) is read again on the next poll.
        const events = await getRunEvents(client, runId, known?.cursor ?? 0, false).catch(() => undefined);
        if (!events) continue;
        // A subscriber that is not resuming wants what happens from now on, not each run's past.
        if (known || !first || resume) yield* events.filter((e) => known !== undefined || fresh(e));
        cursors.set(runId, {
          cursor: events.at(-1)?.id ?? known?.cursor ?? 0,
          historyLength: info.historyLength,
          readAt: Date.now(),
        });
      } else if (!finished.has(runId) && (known || (info.closeTime?.getTime() ?? 0) >= since)) {
        finished.add(runId);
        cursors.delete(runId);
        const events = await getRunEvents(client, runId, known?.cursor ?? 0, true).catch(() => []);
        yield* events.filter((e) => known !== undefined || fresh(e));
      }
    }
    first = false;
    await sleep(options.listPollMs ?? 1_000, undefined, { signal }).catch(() => undefined);
  }
}
