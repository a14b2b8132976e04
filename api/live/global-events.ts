import { setTimeout as sleep } from 'node:timers/promises';
import type { RunEvent } from '../../protocol/index.js';
import type { RunAccess } from '../runs/run-access.js';
import type { ApiOptions } from '../context.js';
import { readEvents, type FeedEvent, type RunEventFeed } from './event-feed.js';
import { compareKeys, keyOf, type EventKey } from './event-order.js';
import { lastChange } from './history-reads.js';
import { listChangedRuns, type LiveRun } from '../runs/run-lists.js';

/** Where a subscriber resumes: the key of the last event it had. */
export type Resume = EventKey;

/**
 * Every run's events for one inbox subscriber: live from the API's shared feed, and first either
 * what the feed sent in the last moments (a new subscriber, whose lists may not show it yet) or,
 * for a subscriber resuming from a Last-Event-ID, what the runs did while it was away. Subscribed
 * to the feed on the call, before the caller tells the subscriber it is live: nothing sent after
 * that moment is missed.
 */
export function globalEvents(
  options: ApiOptions,
  feed: RunEventFeed,
  resume: Resume | undefined,
  signal: AbortSignal,
): AsyncIterable<FeedEvent> {
  if (!resume) return feed.live(signal, { replay: true }).events;
  const { from, events } = feed.live(signal);
  const live = events[Symbol.asyncIterator]();
  return (async function* () {
    try {
      yield* resumed(options, live, from, resume);
    } finally {
      // Not awaited: a generator's return waits for a pending next, and the subscription's own
      // signal ends that.
      void live.return?.()?.catch(() => undefined);
    }
  })();
}

/**
 * Exactly the events after the resume point, in the stream's order. Every feed sends events in that
 * order (time, run, id), each once all runs that changed before its time show in the list, so the
 * subscriber had every event up to the one it names and none after. The events after it of time
 * before `from` (which the feed has sent before this subscription) are read here from each run
 * whose change time is at or after the resume point's time: a run's change time is never earlier
 * than any of its events'. Those of time `from` on come from the feed. A run with no change time
 * (started before runs stamped one) is read if its history grew since, and all its events after
 * the point are sent here; the feed's copies are dropped. A change the list shows later than the
 * visibility lag comes from the feed when found: sent unless read here already.
 */
async function* resumed(
  options: ApiOptions,
  live: AsyncIterator<FeedEvent>,
  from: number,
  resume: Resume,
): AsyncGenerator<FeedEvent> {
  const { client } = options;
  const pollMs = options.listPollMs ?? 1_000;
  const after = (event: RunEvent) => compareKeys(keyOf(event), resume) > 0;
  // Per run, the ids of the events sent while catching up: the feed's copies of them are dropped.
  const sent = new Map<string, Set<number>>();
  // Runs whose log could not be read yet (no worker up): their live events wait for that read,
  // which then sends every event after the point.
  const unread = new Map<string, LiveRun>();

  /** The run's events to send now, or undefined when it cannot be read now. */
  const catchUp = async (info: LiveRun, all: boolean): Promise<FeedEvent[] | undefined> => {
    const events = await readEvents(client, info.runId, undefined, !info.running);
    if (!events) return undefined;
    const ids = sent.get(info.runId) ?? new Set<number>();
    sent.set(info.runId, ids);
    const run: RunAccess = info.access();
    const found: FeedEvent[] = [];
    for (const event of events) {
      if (!after(event) || ids.has(event.id) || (!all && Date.parse(event.at) >= from)) continue;
      ids.add(event.id);
      found.push({ event, run });
    }
    return found;
  };

  const first: FeedEvent[] = [];
  for (const info of await listChangedRuns(client, options.namespace, resume.at, resume.at)) {
    const stamped = info.changedAt !== undefined;
    // An unstamped run the list shows as running may have closed since (the list lags): the read tells.
    if (!stamped && info.running && (await lastChange(client, options.namespace, info.runId)) < resume.at)
      continue;
    const found = await catchUp(info, !stamped);
    if (found) first.push(...found);
    else unread.set(info.runId, info);
  }
  yield* first.sort((a, b) => compareKeys(keyOf(a.event), keyOf(b.event)));

  const tick = Symbol('tick');
  let next = live.next();
  for (;;) {
    const woke = await Promise.race(unread.size > 0 ? [next, sleep(pollMs, tick)] : [next]);
    if (woke === tick) {
      for (const [runId, info] of [...unread]) {
        const found = await catchUp(info, true);
        if (!found) continue;
        unread.delete(runId);
        yield* found;
      }
      continue;
    }
    if (woke.done) return;
    next = live.next();
    const { event } = woke.value;
    if (!after(event) || unread.has(event.runId) || sent.get(event.runId)?.has(event.id)) continue;
    yield woke.value;
  }
}
