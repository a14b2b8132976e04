import { EventEmitter, on } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import type { RunEvent } from '../protocol/index.js';
import type { ApiOptions } from './context.js';
import { getRunEvents } from '../client/index.js';
import { lastChange, lastTaskBefore, liveHistoryLength } from './history-reads.js';
import { listLiveRuns, type LiveRun } from './run-lists.js';

/**
 * How far before the previous poll each poll asks for closed runs: a real cluster's visibility
 * store shows a close a little after it happened. Runs closed in this window are listed again; the
 * feed reads each once.
 */
const CLOSED_LOOKBACK_MS = 60_000;

/**
 * A running run whose listed history length has not changed is described after this many polls: a
 * real cluster's visibility store (and the devserver's) records a length only when the run starts,
 * closes or changes its search attributes or memo, and describing reads the live one. Neither
 * needs a worker. Each look that finds the run quiet doubles the wait, up to MAX_RECHECK_POLLS:
 * what a waiting run does that matters (a decision, a deadline) changes its search attributes and
 * shows in the list at once, so a thousand paused runs need not be described every few seconds.
 */
const RECHECK_POLLS = 5;
const MAX_RECHECK_POLLS = 60;

/**
 * A run's log is read by a query, which needs a worker; bounded, so that a run nobody can answer
 * for (no worker up) holds back the other runs' events only this long. It is read again next poll.
 */
const READ_WAIT_MS = 2_000;

interface Watched {
  /** The last event id emitted; undefined until the log was first read. */
  cursor: number | undefined;
  /** The history length the list showed, and the one last known (the list may lag behind). */
  listedLength: number;
  historyLength: number;
  /**
   * For a run already there when the feed started: its known length is the list's, which may lag,
   * so growth the first describe shows may be older than the feed.
   */
  unverified?: boolean;
  /** The poll at which to describe it if its listed length has not changed, and the wait before. */
  nextCheck: number;
  interval: number;
}

/** The next look at a run, `interval` polls after `poll`. */
const due = (poll: number, interval: number) => ({ nextCheck: poll + interval, interval });

/**
 * Every run's events as they happen, polled from Temporal once for all of this API's inbox
 * subscribers: however many inboxes are open, the runs are listed once a poll. A run's log is read
 * only once its history has grown, so quiet runs (a thousand paused approvals) cost the worker
 * nothing. The poll runs while someone listens; what it remembers is dropped when the last
 * subscriber leaves.
 */
export class RunEventFeed {
  private readonly emitter = new EventEmitter();
  private polling = false;

  constructor(private readonly options: ApiOptions) {
    // One listener per open inbox: there is no leak to warn about.
    this.emitter.setMaxListeners(0);
  }

  /**
   * The events the feed finds from this call on, until `signal` aborts. Subscribed at once, so a
   * caller that first catches up on the past misses nothing meanwhile. A failed poll ends every
   * subscriber's iteration with its error; the next subscriber starts afresh.
   */
  live(signal: AbortSignal): AsyncIterable<RunEvent> {
    const events = on(this.emitter, 'event', { signal });
    if (!this.polling) {
      this.polling = true;
      void this.poll();
    }
    return (async function* () {
      try {
        for await (const [event] of events) yield event as RunEvent;
      } catch (err) {
        if (!signal.aborted) throw err;
      }
    })();
  }

  private async poll(): Promise<void> {
    try {
      await this.follow();
    } catch (err) {
      this.polling = false;
      // With no subscriber left, an 'error' event would have nobody to go to and would throw.
      if (this.emitter.listenerCount('error') > 0) this.emitter.emit('error', err);
    }
  }

  /** Polls while someone listens; clears `polling` in the same step that finds nobody does. */
  private async follow(): Promise<void> {
    const { client, namespace } = this.options;
    const since = Date.now();
    let lastListedAt = since;
    const watched = new Map<string, Watched>();
    const finished = new Set<string>();
    const emit = (events: RunEvent[]) => {
      for (const event of events) this.emitter.emit('event', event);
    };
    /**
     * A run's events the feed has not emitted: after its cursor, or, for a run not read before,
     * those written since the feed started. The latter are told by the run's history, not by the
     * feed's clock: the events of a workflow task that was in flight when the feed started carry
     * that task's earlier start time. A run that started since has nothing to tell apart. Undefined
     * when the run cannot be read now.
     */
    const readUnseen = async ({ runId, startTime }: LiveRun, cursor: number | undefined, closed: boolean) => {
      let from = Number.NEGATIVE_INFINITY;
      if (cursor === undefined && startTime < since) {
        const cutoff = await lastTaskBefore(client, namespace, runId, since);
        if (cutoff === undefined) return undefined;
        from = cutoff;
      }
      const events = await readEvents(client, runId, cursor, closed);
      if (!events) return undefined;
      return { unseen: events.filter((event) => Date.parse(event.at) >= from), last: events.at(-1)?.id };
    };
    for (let poll = 0; ; poll++) {
      if (this.emitter.listenerCount('event') === 0) {
        this.polling = false;
        return;
      }
      const listedAt = Date.now();
      const infos = await listLiveRuns(client, namespace, Math.max(since, lastListedAt - CLOSED_LOOKBACK_MS));
      lastListedAt = listedAt;
      for (const info of infos) {
        const { runId } = info;
        const known = watched.get(runId);
        if (info.running) {
          // A run already there when the feed started has nothing to say until its history grows.
          if (!known && poll === 0) {
            const length = info.historyLength;
            watched.set(runId, {
              cursor: undefined,
              listedLength: length,
              historyLength: length,
              unverified: true,
              ...due(poll, RECHECK_POLLS),
            });
            continue;
          }
          let historyLength = info.historyLength;
          if (known && info.historyLength === known.listedLength) {
            if (poll < known.nextCheck) continue;
            const described = await liveHistoryLength(client, namespace, runId);
            if (described === undefined || described === known.historyLength) {
              Object.assign(known, due(poll, Math.min(known.interval * 2, MAX_RECHECK_POLLS)));
              continue;
            }
            historyLength = described;
            if (known.unverified) {
              known.unverified = false;
              // Grown before the feed started: nothing to say, and no reason to wake the run.
              if ((await lastChange(client, namespace, runId)) < since) {
                Object.assign(known, { historyLength }, due(poll, RECHECK_POLLS));
                continue;
              }
            }
          }
          const read = await readUnseen(info, known?.cursor, false);
          if (!read) {
            // Not readable now (no worker up): look again on the next poll.
            if (known) known.nextCheck = poll + 1;
            continue;
          }
          emit(read.unseen);
          watched.set(runId, {
            cursor: read.last ?? known?.cursor,
            listedLength: info.historyLength,
            historyLength,
            ...due(poll, RECHECK_POLLS),
          });
        } else if (!finished.has(runId) && (known || (info.closeTime ?? 0) >= since)) {
          const read = await readUnseen(info, known?.cursor, true);
          // Not readable now: read again on the next poll, while the run is still listed.
          if (!read) continue;
          finished.add(runId);
          watched.delete(runId);
          emit(read.unseen);
        }
      }
      // A run that has left the list (closed before the lookback) is not followed any more.
      const listed = new Set(infos.map((info) => info.runId));
      for (const runId of finished) if (!listed.has(runId)) finished.delete(runId);
      for (const runId of watched.keys()) if (!listed.has(runId)) watched.delete(runId);
      await sleep(this.options.listPollMs ?? 1_000);
    }
  }
}

/** A run's events after `cursor`, or undefined when they cannot be read now (no worker up). */
export async function readEvents(
  client: Client,
  runId: string,
  cursor: number | undefined,
  closed: boolean,
): Promise<RunEvent[] | undefined> {
  return client
    .withDeadline(Date.now() + READ_WAIT_MS, () => getRunEvents(client, runId, cursor ?? 0, closed))
    .catch(() => undefined);
}
