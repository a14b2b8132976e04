import { setTimeout as sleep } from 'node:timers/promises';
import { GrpcStatus as status } from '../../client/grpc-status.js';
import { isGrpcServiceError } from '@temporalio/client';
import { createSession, type Session } from 'better-sse';
import type { Request, RequestHandler, Response } from 'express';
import type { RunEvent } from '../../protocol/index.js';
import { accessRule } from '../access.js';
import { approverOf } from '../auth.js';
import type { ApiOptions } from '../context.js';
import { HttpError } from '../errors.js';
import { historyChanges } from './history-watch.js';
import type { RunEventFeed } from './event-feed.js';
import { globalEvents, type Resume } from './global-events.js';
import { getRunEvents } from '../../client/index.js';

/** Opens the stream; `controller` aborts when the subscriber goes away. */
async function open(
  req: Request,
  res: Response,
  controller = new AbortController(),
): Promise<{ session: Session; signal: AbortSignal }> {
  // Also a subscriber gone before the session opened: what it subscribed to is let go.
  res.once('close', () => controller.abort());
  const session = await createSession(req, res, {
    keepAlive: 15_000,
    headers: { 'x-accel-buffering': 'no' },
  });
  session.once('disconnected', () => controller.abort());
  return { session, signal: controller.signal };
}

/** A run stream's event ids: the run's event log ids. ASCII digits, as the OpenAPI document says. */
export const RUN_EVENT_ID = /^[0-9]{1,9}$/;
/** The inbox stream's event ids, `<epoch ms>~<runId>~<event id>` (see `globalId`). */
export const GLOBAL_EVENT_ID = /^([0-9]{1,15})~([A-Za-z0-9_-]{1,120})~([0-9]{1,9})$/;

/**
 * Where a subscriber resumes: after `Last-Event-ID`, else after `?after=` ('' for the start). Each one
 * given must be an id of this stream, even the one the other overrides.
 */
function resumePoint(req: Request, ids: RegExp, stream: string): string {
  const header = req.get('last-event-id') ?? '';
  const query = req.query.after ?? '';
  for (const value of [header, query]) {
    if (value !== '' && !(typeof value === 'string' && ids.test(value))) {
      throw new HttpError(400, `Last-Event-ID must be an event id of this ${stream}`, {
        code: 'invalid_request',
      });
    }
  }
  return header || (query as string);
}

/**
 * `GET /api/runs/:runId/events`: the run's event log, live. Event ids are the log's ids, so
 * `Last-Event-ID` (or `?after=`) resumes exactly where a subscriber left off. Fed from Temporal
 * alone (history long-poll, then the `events` query), so any API instance serves any subscriber.
 */
export function runEventStream(options: ApiOptions): RequestHandler {
  return async (req, res) => {
    const runId = String(req.params.runId);
    const resumeFrom = resumePoint(req, RUN_EVENT_ID, 'run');
    // Who may read the run may follow it: a run they may not read is a 404, like one that is not.
    const description = await accessRule(options).readable(options.client, approverOf(res), runId);
    let cursor = Number(resumeFrom || 0);
    if (description.status.name !== 'RUNNING') {
      const rest = await getRunEvents(options.client, runId, cursor, true);
      // 204 tells an EventSource to stop reconnecting to a finished run.
      if (rest.length === 0) return void res.status(204).end();
    }
    const { session, signal } = await open(req, res);
    const push = (events: RunEvent[]) => {
      for (const event of events) {
        session.push(event, event.type, String(event.id));
        cursor = event.id;
      }
    };
    try {
      let retryMs = RETRY_MS;
      for (let ended = false; !ended && !signal.aborted; ) {
        try {
          for await (const { closed } of historyChanges(options.client, options.namespace, runId, signal)) {
            push(await getRunEvents(options.client, runId, cursor, closed));
            retryMs = RETRY_MS;
            if ((ended = closed)) break;
          }
          ended = true;
        } catch (err) {
          if (signal.aborted || !isTransient(err)) throw err;
          // Read again from the cursor, after a pause that grows while the errors go on.
          await sleep(retryMs, undefined, { signal }).catch(() => undefined);
          retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
        }
      }
      if (!signal.aborted) {
        session.push({ runId }, 'end', String(cursor));
        res.end();
      }
    } catch (err) {
      if (!signal.aborted) {
        console.error(`countersign api: event stream for ${runId} failed:`, err);
        res.end();
      }
    }
  };
}

/** How long a run's stream waits before reading again after a transient error, at first and at most. */
export const RETRY_MS = 200;
export const MAX_RETRY_MS = 5_000;

/**
 * Errors a run's stream outlives, reading again from its cursor: a query refused while another
 * waits on the run (one may wait while a workflow task is in flight), a long poll the server ended
 * at its deadline (it may reset the call, which reads as CANCELLED), a server briefly unreachable.
 */
export function isTransient(err: unknown): boolean {
  for (let cause = err; cause; cause = (cause as { cause?: unknown }).cause) {
    if (isGrpcServiceError(cause)) {
      return (
        [
          status.CANCELLED,
          status.DEADLINE_EXCEEDED,
          status.RESOURCE_EXHAUSTED,
          status.UNAVAILABLE,
        ] as number[]
      ).includes(cause.code);
    }
  }
  return false;
}

/**
 * `GET /api/events`: every run's events the caller may read, for the inbox. Runs are found with
 * the list filter on their change time; ids are `<epoch ms>~<runId>~<event id>`, in the order the
 * stream sends them, so `Last-Event-ID` resumes exactly across runs (global-events.ts). Each event is judged by its run's
 * listing as the feed last saw it, so a run that comes to ask for the caller's role shows from then.
 */
export function allEventsStream(options: ApiOptions, feed: RunEventFeed): RequestHandler {
  const access = accessRule(options);
  return async (req, res) => {
    const caller = approverOf(res);
    const resume = parseGlobalId(resumePoint(req, GLOBAL_EVENT_ID, 'stream'));
    // Subscribed before the headers go out: once the subscriber reads that it is live (and reads its
    // lists), nothing the feed finds is missed.
    const controller = new AbortController();
    const events = globalEvents(options, feed, resume, controller.signal);
    const { session, signal } = await open(req, res, controller).catch((err: unknown) => {
      controller.abort();
      throw err;
    });
    try {
      for await (const { event, run } of events) {
        if (access.mayRead(caller, run)) session.push(event, event.type, globalId(event));
      }
    } catch (err) {
      if (!signal.aborted) {
        console.error('countersign api: event stream failed:', err);
        res.end();
      }
    }
  };
}

export function globalId(event: RunEvent): string {
  return `${Date.parse(event.at)}~${event.runId}~${event.id}`;
}

export function parseGlobalId(value: string): Resume | undefined {
  const match = GLOBAL_EVENT_ID.exec(value);
  return match ? { at: Number(match[1]), runId: match[2]!, id: Number(match[3]) } : undefined;
}
