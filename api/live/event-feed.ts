import { EventEmitter, on } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import type { RunEvent } from '../../protocol/index.js';
import type { RunAccess } from '../runs/run-access.js';
import type { ApiOptions } from '../context.js';
import { getRunEvents } from '../../client/index.js';
import { lastCompletedTask, lastTaskBefore, liveHistory } from './history-reads.js';
import { listLiveRuns, type LiveRun } from '../runs/run-lists.js';

/**
 * How far before the previous poll each poll asks for closed runs: a real cluster's visibility
 * store shows a close a little after it happened. Runs closed in this window are listed again; the
 * feed reads each once.
 */
const CLOSED_LOOKBACK_MS = 60_000;

/**
 * A running run whose listing has not changed is described after this many polls: the list shows
 * a run anew only when its status, search attributes or memo change (and a little late), not as its
 * history grows (a tool's result, a model's answer); describing reads the live history length.
 * Neither needs a worker. Each look that finds the run quiet doubles the wait, up to
 * MAX_RECHECK_POLLS: what a waiting run does that matters (a decision, a deadline) changes its
 * search attributes or memo and shows in the list, so a thousand paused runs need not be described
 * every few seconds.
 */
const RECHECK_POLLS = 5;
const MAX_RECHECK_POLLS = 60;

/**
 * A run's log is read by a query, which needs a worker; bounded, so that a run nobody can answer
 * for (no worker up) holds back the other runs' events only this long. It is read again after
 * RETRY_POLLS, twice as many after each failure up to MAX_RETRY_POLLS, or as soon as its listing
 * changes: a hundred runs nobody answers for must not hold back the others' events every poll.
 */
const READ_WAIT_MS = 2_000;

/**
 * How far back a new subscriber is told what the feed found: the inbox reads its lists once the
 * stream is live, and a list trails the runs by the visibility store's lag, so news found a little
 * before the subscription may be in neither the list nor the live stream. For the same reason, a
 * run whose listing changes after the feed started is read from this far back. Subscribers apply
 * events by id, so news told twice is harmless.
 */
export const REPLAY_MS = 10_000;
const RETRY_POLLS = 1;
const MAX_RETRY_POLLS = 8;

interface Watched {
  /** The last event id emitted; undefined until the log was first read. */
  cursor: number | undefined;
  /** The run's listing when last seen (LiveRun.listed). */
  listed: string;
  /**
   * The history length up to which the feed has told the run's events: every workflow task that
   * completed up to this event was read (or wrote nothing new). Undefined for a run already there
   * when the feed started, until first looked at: what it did before the feed is not news.
   */
  knownLength: number | undefined;
  /** The Temporal run (execution) `knownLength` counts in; another one is the run continued as new. */
  execution?: string;
  /** The poll at which to look at it again if its listing has not changed, and the wait before. */
  nextCheck: number;
  interval: number;
  /** Set while its log could not be read: the wait before the next try. */
  retry?: number;
}

/** One event of a run, with what decides who may read that run (as its listing last showed it). */
export interface FeedEvent {
  event: RunEvent;
  run: RunAccess;
}

/** The next look at a run, `interval` polls after `poll`. */
const due = (poll: number, interval: number) => ({ nextCheck: poll + interval, interval });

/**
 * Every run's events as they happen, polled from Temporal once for all of this API's inbox
 * subscribers: however many inboxes are open, the runs are listed once a poll. A run's log is read
 * only once a workflow task has completed since it was last read, which the server alone tells, so
 * quiet runs (a thousand paused approvals) cost the worker nothing and are never loaded into its
 * cache. The poll runs while someone listens; what it remembers is dropped when the last
 * subscriber leaves.
 */
export class RunEventFeed {
  private readonly emitter = new EventEmitter();
  private polling = false;
  /** What the feed found in the last REPLAY_MS, oldest first, for new subscribers. */
  private recent: { foundAt: number; found: FeedEvent }[] = [];

  constructor(private readonly options: ApiOptions) {
    // One listener per open inbox: there is no leak to warn about.
    this.emitter.setMaxListeners(0);
  }

  /**
   * The events the feed finds from this call on, until `signal` aborts; with `replay`, first those
   * it found in the last REPLAY_MS. Subscribed at once, so a caller that first catches up on the
   * past, or answers that it is live, misses nothing meanwhile. A failed poll ends every
   * subscriber's iteration with its error; the next subscriber starts afresh.
   */
  live(signal: AbortSignal, { replay = false }: { replay?: boolean } = {}): AsyncIterable<FeedEvent> {
    const events = on(this.emitter, 'event', { signal });
    const replayed = replay ? this.recentEvents() : [];
    if (!this.polling) {
      this.polling = true;
      this.recent = [];
      void this.poll();
    }
    return (async function* () {
      try {
        yield* replayed;
        for await (const [event] of events) yield event as FeedEvent;
      } catch (err) {
        if (!signal.aborted) throw err;
      }
    })();
  }

  private recentEvents(): FeedEvent[] {
    const from = Date.now() - REPLAY_MS;
    this.recent = this.recent.filter(({ foundAt }) => foundAt >= from);
    return this.recent.map(({ found }) => found);
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
    // A run whose listing changes after the feed started may have changed a little before it: the
    // list trails the runs, so its news may not be in the list the first subscriber reads either.
    // A run looked at only because its time came shows no such lag, and goes back no further.
    const lagging = since - REPLAY_MS;
    let lastListedAt = since;
    const watched = new Map<string, Watched>();
    const finished = new Set<string>();
    const emit = (events: RunEvent[], run: RunAccess) => {
      const foundAt = Date.now();
      for (const event of events) {
        const found: FeedEvent = { event, run };
        this.recent.push({ foundAt, found });
        this.emitter.emit('event', found);
      }
      this.recentEvents();
    };

    /**
     * Whether the run's log may hold events not told yet: a workflow task completed after the
     * known length or, for a run not looked at since the feed started, since `from`. Undefined when
     * the history cannot be read now.
     */
    const changed = async (runId: string, knownLength: number | undefined, from: number) => {
      const task = await lastCompletedTask(client, namespace, runId, knownLength ?? 0);
      if (task === undefined) return undefined;
      return task !== null && (knownLength !== undefined || task.time >= from);
    };

    /**
     * A run's events the feed has not emitted: after its cursor, or, for a run not read before,
     * those written since `since`. The latter are told by the run's history, not by the feed's
     * clock: the events of a workflow task that was in flight when the feed started carry that
     * task's earlier start time. A run that started since has nothing to tell apart. Undefined when
     * the run cannot be read now.
     */
    const readUnseen = async (
      { runId, startTime }: LiveRun,
      cursor: number | undefined,
      closed: boolean,
      since: number,
    ) => {
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

    /**
     * Looks at a run whose listing changed or whose time has come: its log is read only if a
     * workflow task completed since it was last told. Returns whether the run is done with (closed
     * and told).
     */
    const look = async (
      info: LiveRun,
      run: Watched,
      poll: number,
      listingChanged: boolean,
    ): Promise<boolean> => {
      const from = listingChanged ? lagging : since;
      const history = await liveHistory(client, namespace, info.runId);
      const unreadable = () => {
        const retry = run.retry ?? RETRY_POLLS;
        Object.assign(run, { nextCheck: poll + retry, retry: Math.min(retry * 2, MAX_RETRY_POLLS) });
        return false;
      };
      if (!history) return unreadable();
      // The next execution of a run that continued as new: its history starts afresh, however long.
      const continued = run.execution !== undefined && history.execution !== run.execution;
      const quiet = () => {
        Object.assign(run, { knownLength: history.length, execution: history.execution, retry: undefined });
        Object.assign(run, due(poll, Math.min(run.interval * 2, MAX_RECHECK_POLLS)));
        return history.closed;
      };
      if (!continued && history.length === run.knownLength) return quiet();
      const news = continued || (await changed(info.runId, run.knownLength, from));
      if (news === undefined) return unreadable();
      if (!news) return quiet();
      const read = await readUnseen(info, run.cursor, history.closed, from);
      // Not readable now (no worker up): look again later.
      if (!read) return unreadable();
      if (read.unseen.length > 0) emit(read.unseen, info.access());
      Object.assign(run, {
        cursor: read.last ?? run.cursor,
        knownLength: history.length,
        execution: history.execution,
        retry: undefined,
      });
      Object.assign(run, due(poll, RECHECK_POLLS));
      return history.closed;
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
        if (finished.has(runId)) continue;
        let run = watched.get(runId);
        let listingChanged = false;
        if (!run) {
          // Closed before the feed started: nothing new to say.
          if (!info.running && (info.closeTime ?? 0) < since) continue;
          // A run already there when the feed started has nothing to say until it changes. Those
          // of the first list are taken as they are; one listed later (the list lags) is looked at.
          const before = info.startTime < since;
          run = {
            cursor: undefined,
            listed: info.listed,
            knownLength: before ? undefined : 0,
            ...due(poll, RECHECK_POLLS),
          };
          watched.set(runId, run);
          if (before && poll === 0 && info.running) continue;
          // Listed late: its listing is news.
          listingChanged = before;
        } else {
          listingChanged = run.listed !== info.listed;
          run.listed = info.listed;
          if (!listingChanged && poll < run.nextCheck) continue;
        }
        if (await look(info, run, poll, listingChanged)) {
          finished.add(runId);
          watched.delete(runId);
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
  closed: boolean | undefined,
): Promise<RunEvent[] | undefined> {
  return client
    .withDeadline(Date.now() + READ_WAIT_MS, () => getRunEvents(client, runId, cursor ?? 0, closed))
    .catch(() => undefined);
}
