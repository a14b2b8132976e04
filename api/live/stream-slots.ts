import type { RequestHandler } from 'express';
import { z } from 'zod';
import { approverOf } from '../auth.js';
import { HttpError } from '../errors.js';

/**
 * How many event streams (`GET /api/events`, `GET /api/runs/:runId/events`) this API instance holds
 * open: each holds a connection and reads Temporal, so one caller's hundreds would slow everyone's.
 *
 * @example
 * ```ts
 * const options: Partial<CountersignApiOptions> = { eventStreams: { perCaller: 5, total: 200 } };
 * ```
 */
export const EventStreamLimits = z.strictObject({
  /** Streams one approver (by id) may hold open at once; 20 by default. */
  perCaller: z.number().int().min(1).default(20),
  /** Streams of every caller together; 1000 by default. */
  total: z.number().int().min(1).default(1000),
});
export type EventStreamLimits = z.input<typeof EventStreamLimits>;

/** What a caller refused a stream is told to wait, in seconds: a closed stream frees its slot at once. */
const RETRY_AFTER_S = 5;

/**
 * Takes a slot before a stream route runs, and frees it when the response closes (the subscriber
 * went away, the stream ended, or the route answered without streaming). Past either bound it is
 * a 429 `too_many_streams` with Retry-After.
 */
export function limitEventStreams(limits: EventStreamLimits = {}): RequestHandler {
  const parsed = EventStreamLimits.safeParse(limits);
  if (!parsed.success) throw new TypeError(`countersign: eventStreams: ${z.prettifyError(parsed.error)}`);
  const { perCaller, total } = parsed.data;
  const open = new Map<string, number>();
  let all = 0;
  return (_req, res, next) => {
    const { id } = approverOf(res);
    const mine = open.get(id) ?? 0;
    if (mine >= perCaller || all >= total) {
      res.set('Retry-After', String(RETRY_AFTER_S));
      const bound =
        mine >= perCaller
          ? `you have ${perCaller} open, the most one caller may`
          : `this server holds ${total}, the most it serves at once`;
      throw new HttpError(429, `too many event streams: ${bound}; close one, or try again later`, {
        code: 'too_many_streams',
      });
    }
    open.set(id, mine + 1);
    all++;
    res.once('close', () => {
      all--;
      const left = open.get(id)! - 1;
      if (left === 0) open.delete(id);
      else open.set(id, left);
    });
    next();
  };
}
