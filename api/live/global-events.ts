import { setTimeout as sleep } from 'node:timers/promises';
import type { RunEvent } from '../../protocol/index.js';
import type { RunAccess } from '../runs/run-access.js';
import type { ApiOptions } from '../context.js';
import { readEvents, type FeedEvent, type RunEventFeed } from './event-feed.js';
import { lastChange } from './history-reads.js';
import { listLiveRuns } from '../runs/run-lists.js';

/**
 * How much older than its resume point an event of a run that changed since may be and still be
 * sent. The feed emits a run's events a workflow task and a poll after their time, in the order it
 * reads runs, so one stamped a little before the last event a subscriber got may not have reached
 * it. Such events come again rather than never; subscribers apply events by id.
 */
const RESUME_SLACK_MS = 30_000;

/**
 * How long a resuming subscriber goes on listing the runs to catch up on: the list shows a run
 * that started or changed a little after it did, so a run it does not show yet may have news from
 * before the subscription, which the shared feed does not send again.
 */
const LIST_LAG_MS = 5_000;

export interface Resume {
  at: number;
  runId: string;
  id: number;
}

/**
 * Every run's events for one inbox subscriber: live from the API's shared feed, and first either
 * what the feed found in the last moments (a new subscriber, whose lists may not show it yet) or,
 * for a subscriber resuming from a Last-Event-ID, what the runs did while it was away. Catching up
 * reads only runs whose history changed since then (a server-only read), so quiet runs cost the
 * worker nothing here either. Subscribed to the feed on the call, before the caller tells the
 * subscriber it is live: nothing found after that moment is missed.
 */
export function globalEvents(
  options: ApiOptions,
  feed: RunEventFeed,
  resume: Resume | undefined,
  signal: AbortSignal,
): AsyncIterable<FeedEvent> {
  if (!resume) return feed.live(signal, { replay: true });
  const live = feed.live(signal)[Symbol.asyncIterator]();
  return (async function* () {
    try {
      yield* resumed(options, live, resume);
    } finally {
      // Not awaited: a generator's return waits for a pending next, and the subscription's own
      // signal ends that.
      void live.return?.()?.catch(() => undefined);
    }
  })();
}

async function* resumed(
  options: ApiOptions,
  live: AsyncIterator<FeedEvent>,
  resume: Resume,
): AsyncGenerator<FeedEvent> {
  const { client } = options;
  const pollMs = options.listPollMs ?? 1_000;
  // Per run, the last event id delivered while catching up; the feed's copies of them are dropped.
  const caughtUp = new Map<string, number>();
  // Runs whose log could not be read yet (no worker up), whether they had closed (undefined: not
  // known) and who may read them: their live events wait for that read.
  const unread = new Map<string, { closed: boolean | undefined; run: RunAccess }>();
  // For runs not caught up (yet), the first and last event ids the feed delivered.
  const delivered = new Map<string, { first: number; last: number }>();
  const missed = (event: RunEvent) =>
    Date.parse(event.at) >= resume.at - RESUME_SLACK_MS &&
    !(event.runId === resume.runId && event.id <= resume.id);
  const catchUp = async function* (runId: string, closed: boolean | undefined, run: RunAccess) {
    const events = await readEvents(client, runId, undefined, closed);
    if (!events) return void unread.set(runId, { closed, run });
    unread.delete(runId);
    caughtUp.set(runId, events.at(-1)?.id ?? 0);
    // A run the list showed late: the feed may have delivered some of its events already.
    const sent = delivered.get(runId);
    delivered.delete(runId);
    for (const event of events)
      if (missed(event) && !(sent && event.id >= sent.first && event.id <= sent.last)) yield { event, run };
  };
  // Runs a listing showed: caught up on then if they had changed, followed by the feed from then on.
  const listed = new Set<string>();
  /**
   * Runs that changed since the resume point, not listed before; closed runs are listed only if
   * they closed since then. A run the list shows as running may have closed since (the list lags):
   * the read tells.
   */
  const catchUpListed = async function* () {
    for (const info of await listLiveRuns(client, options.namespace, resume.at)) {
      if (listed.has(info.runId)) continue;
      listed.add(info.runId);
      const changed = !info.running || (await lastChange(client, options.namespace, info.runId)) >= resume.at;
      if (changed) yield* catchUp(info.runId, info.running ? undefined : true, info.access());
    }
  };

  const listingUntil = Date.now() + LIST_LAG_MS;
  yield* catchUpListed();

  const tick = Symbol('tick');
  let next = live.next();
  for (;;) {
    const listing = Date.now() < listingUntil;
    if (!listing) {
      delivered.clear();
      listed.clear();
    }
    const woke = await Promise.race(unread.size > 0 || listing ? [next, sleep(pollMs, tick)] : [next]);
    if (woke === tick) {
      for (const [runId, { closed, run }] of [...unread]) yield* catchUp(runId, closed, run);
      if (listing) yield* catchUpListed();
      continue;
    }
    if (woke.done) return;
    next = live.next();
    const { event } = woke.value;
    if (unread.has(event.runId) || event.id <= (caughtUp.get(event.runId) ?? 0)) continue;
    if (event.runId === resume.runId && event.id <= resume.id) continue;
    if (listing && !caughtUp.has(event.runId)) {
      const sent = delivered.get(event.runId);
      delivered.set(event.runId, { first: sent?.first ?? event.id, last: event.id });
    }
    yield woke.value;
  }
}
