import { EventEmitter, on } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import type { RunEvent } from '../../protocol/index.js';
import type { RunAccess } from '../runs/run-access.js';
import type { ApiOptions } from '../context.js';
import { getRunEvents } from '../../client/index.js';
import { listChangedRuns, type LiveRun } from '../runs/run-lists.js';
import { compareKeys, keyOf } from './event-order.js';

/**
 * How late a run's change may show in Temporal's lists, by default (`ApiOptions.visibilityLagMs`):
 * a real cluster's visibility store shows a write about a second after it, and a workflow task's
 * events carry the time the task started, a little before it completed.
 */
export const VISIBILITY_LAG_MS = 2_000;

/**
 * How much further back than the lag each poll lists changed runs: a change the store shows later
 * than the lag still reaches subscribers, late and out of order, as long as it shows within this.
 */
const LATE_MS = 10_000;

/**
 * Runs that carry no change time (started before runs stamped one, or stepped only by workers not
 * upgraded yet) are listed every this many polls, and read when their listing changes (status,
 * pending approvals, close): their other events come with that change. A run stamps from its first
 * step on an upgraded worker, so there are fewer of them as runs move on.
 */
const UNSTAMPED_POLLS = 5;

/** How far before the previous such poll it asks for unstamped runs that closed: the list lags. */
const CLOSED_LOOKBACK_MS = 60_000;

/**
 * A run's log is read by a query, which needs a worker; bounded, so that a run nobody can answer
 * for (no worker up) holds back the other runs' events only this long. It is read again after
 * RETRY_POLLS, twice as many after each failure up to MAX_RETRY_POLLS, whether it is listed or not.
 */
const READ_WAIT_MS = 2_000;
/** How many runs' logs a poll reads at once. */
const READS_AT_ONCE = 16;
const RETRY_POLLS = 1;
const MAX_RETRY_POLLS = 8;

/**
 * How far back a subscriber joining an open feed is told what the feed sent: the inbox reads its
 * lists once the stream is live, and a list trails the runs by the visibility store's lag, so news
 * sent a little before the subscription may be in neither the list nor the live stream.
 * Subscribers apply events by id, so news told twice is harmless.
 */
export const REPLAY_MS = 10_000;

interface Watched {
  /** The last event id read; undefined until the log was first read. */
  cursor: number | undefined;
  /** The change time the run showed when its log was last read. */
  stamp?: number;
  /** An unstamped run's listing when last seen (LiveRun.listed). */
  listed?: string;
  /** The run as last listed: whether it runs, who may read it. */
  info: LiveRun;
  /** Set while its log could not be read: the poll at which to try again, and the wait after that. */
  retry?: { poll: number; wait: number };
}

/** One event of a run, with what decides who may read that run (as its listing last showed it). */
export interface FeedEvent {
  event: RunEvent;
  run: RunAccess;
}

/**
 * Every run's events as they happen, polled from Temporal once for all of this API's inbox
 * subscribers: however many inboxes are open, one list a poll, of the runs whose change time is
 * recent. A run stamps that time whenever it changes, so a thousand paused runs are not listed at
 * all once they have been still for a few seconds, never described, and never loaded into the
 * worker's cache.
 *
 * Events go out in the stream's order (their time, run, id; see event-order.ts), each once the
 * visibility lag has passed since its time: by then every run that changed before it shows in the
 * list, so everything the feed sends before an event comes before it in that order, and everything
 * after comes after. That is what makes a Last-Event-ID a point a subscriber resumes from exactly
 * (global-events.ts). A change the store shows later than the lag is still sent when found, out of
 * order. The poll runs while someone listens; what it remembers is dropped when the last
 * subscriber leaves.
 */
export class RunEventFeed {
  private readonly emitter = new EventEmitter();
  private polling = false;
  /** Every event of time before this has been sent (or comes late); none at or after it. */
  private released = 0;
  /** What the feed sent in the last REPLAY_MS, oldest first, for new subscribers. */
  private recent: { sentAt: number; found: FeedEvent }[] = [];

  constructor(private readonly options: ApiOptions) {
    // One listener per open inbox: there is no leak to warn about.
    this.emitter.setMaxListeners(0);
  }

  /**
   * The events the feed sends from this call on, until `signal` aborts; with `replay`, first those
   * it sent in the last REPLAY_MS. Subscribed at once, so a caller that first catches up on the
   * past, or answers that it is live, misses nothing meanwhile. `from`: the events this subscriber
   * gets live are those of time at or after it (and any that come late). A failed poll ends every
   * subscriber's iteration with its error; the next subscriber starts afresh.
   */
  live(
    signal: AbortSignal,
    { replay = false }: { replay?: boolean } = {},
  ): { from: number; events: AsyncIterable<FeedEvent> } {
    const events = on(this.emitter, 'event', { signal });
    const replayed = replay ? this.recentEvents() : [];
    if (!this.polling) {
      this.polling = true;
      this.recent = [];
      // A first subscriber reads lists that may miss what changed within the lag: the feed starts there.
      this.released = Date.now() - (this.options.visibilityLagMs ?? VISIBILITY_LAG_MS);
      void this.poll();
    }
    return {
      from: this.released,
      events: (async function* () {
        try {
          yield* replayed;
          for await (const [event] of events) yield event as FeedEvent;
        } catch (err) {
          if (!signal.aborted) throw err;
        }
      })(),
    };
  }

  private recentEvents(): FeedEvent[] {
    const from = Date.now() - REPLAY_MS;
    this.recent = this.recent.filter(({ sentAt }) => sentAt >= from);
    return this.recent.map(({ found }) => found);
  }

  private send(found: FeedEvent[]): void {
    const sentAt = Date.now();
    for (const event of found) {
      this.recent.push({ sentAt, found: event });
      this.emitter.emit('event', event);
    }
    this.recentEvents();
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
    const lagMs = this.options.visibilityLagMs ?? VISIBILITY_LAG_MS;
    // What happened before this is not news; what happened since is sent to the first subscribers.
    const since = this.released;
    const started = Date.now();
    let unstampedListedAt = started;
    const watched = new Map<string, Watched>();
    /** Closed runs whose log was read to its end, and when: they have nothing more to say. */
    const finished = new Map<string, number>();
    /** Events read whose time the lag has not passed yet, to go out in order. */
    let held: FeedEvent[] = [];
    /** Unstamped runs being read beside the polls. */
    const reading = new Set<string>();
    /** At most READS_AT_ONCE reads at a time, whoever asks. */
    let active = 0;
    const waiting: (() => void)[] = [];
    const limit = async (task: () => Promise<void>): Promise<void> => {
      if (active >= READS_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
      active++;
      try {
        await task();
      } catch {
        // A run whose read fails is read again when it next shows as changed.
      } finally {
        active--;
        waiting.shift()?.();
      }
    };

    /** Reads the run's events after its cursor; those of time before `released` go out at once. */
    const read = async (runId: string, run: Watched, poll: number) => {
      const { info } = run;
      const events = await readEvents(client, runId, run.cursor, !info.running);
      if (!events) {
        const wait = run.retry?.wait ?? RETRY_POLLS;
        run.retry = { poll: poll + wait, wait: Math.min(wait * 2, MAX_RETRY_POLLS) };
        return;
      }
      const fresh = run.cursor === undefined ? events.filter((e) => Date.parse(e.at) >= since) : events;
      Object.assign(run, {
        cursor: events.at(-1)?.id ?? run.cursor,
        stamp: info.changedAt,
        retry: undefined,
      });
      const access = info.access();
      const late: FeedEvent[] = [];
      for (const event of fresh)
        (Date.parse(event.at) < this.released ? late : held).push({ event, run: access });
      this.send(late);
      if (!info.running) {
        finished.set(runId, Date.now());
        watched.delete(runId);
      }
    };

    for (let poll = 0; ; poll++) {
      if (this.emitter.listenerCount('event') === 0) {
        this.polling = false;
        return;
      }
      const listedAt = Date.now();
      const unstamped = poll % UNSTAMPED_POLLS === 0;
      const infos = await listChangedRuns(
        client,
        namespace,
        this.released - LATE_MS,
        unstamped ? Math.max(started, unstampedListedAt - CLOSED_LOOKBACK_MS) : undefined,
      );
      if (unstamped) unstampedListedAt = listedAt;
      const due = new Set<string>();
      for (const info of infos) {
        const { runId } = info;
        if (finished.has(runId)) continue;
        let run = watched.get(runId);
        if (info.changedAt !== undefined) {
          // Read once per change: the run shows in each list until its change time is old.
          if (run?.stamp !== undefined && info.changedAt <= run.stamp) continue;
          run ??= { cursor: undefined, info };
          // Changed last before `since`: none of its events is news, and it is not read.
          if (run.cursor === undefined && info.changedAt < since) {
            if (!info.running) finished.set(runId, Date.now());
            else watched.set(runId, Object.assign(run, { stamp: info.changedAt, info }));
            continue;
          }
        } else if (!run) {
          run = { cursor: undefined, listed: info.listed, info };
          watched.set(runId, run);
          // Those of the first list are read once their listing changes (from `since` on).
          if (poll === 0 && info.running) continue;
        } else {
          if (run.listed === info.listed) continue;
          run.listed = info.listed;
        }
        run.info = info;
        watched.set(runId, run);
        due.add(runId);
      }
      // Runs whose log could not be read are tried again, listed or not.
      for (const [runId, run] of watched) if (run.retry && run.retry.poll <= poll) due.add(runId);
      // Stamped runs are read before their events are released, side by side. An unstamped run
      // (started before runs stamped, or not yet taken by any worker, which nobody may answer for)
      // is read beside the polls: its wait holds back no other run's events, and its events come
      // when read (their order is not promised).
      const stamped: string[] = [];
      for (const runId of due) {
        const run = watched.get(runId)!;
        if (run.retry && run.retry.poll > poll) continue;
        if (run.info.changedAt !== undefined) stamped.push(runId);
        else if (!reading.has(runId)) {
          reading.add(runId);
          void limit(() => read(runId, run, poll)).finally(() => reading.delete(runId));
        }
      }
      await Promise.all(stamped.map((runId) => limit(() => read(runId, watched.get(runId)!, poll))));

      // The lag has passed for events of time before this: every run that changed then is listed.
      const release = Math.max(this.released, listedAt - lagMs);
      const ready = held.filter(({ event }) => Date.parse(event.at) < release);
      held = held.filter(({ event }) => Date.parse(event.at) >= release);
      this.released = release;
      this.send(ready.sort((a, b) => compareKeys(keyOf(a.event), keyOf(b.event))));

      // A closed run leaves both lists within the lookbacks; past them it cannot show again.
      for (const [runId, at] of finished) if (at < listedAt - 2 * CLOSED_LOOKBACK_MS) finished.delete(runId);
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
