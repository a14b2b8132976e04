import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { pool } from '../../test/faults/support/pool.js';
import { serveDriver } from '../lib/driver.js';
import { readSse } from '../lib/sse.js';
import { BENCH_AGENT } from './agents.js';
import { runRecords } from './run-records.js';

const api = process.env.BENCH_API_URL!;
// Runs are started by one approver and approved by another: nobody may approve their own run.
const requester = {
  authorization: `Bearer ${process.env.BENCH_REQUESTER_TOKEN}`,
  'content-type': 'application/json',
};
const reviewer = {
  authorization: `Bearer ${process.env.BENCH_REVIEWER_TOKEN}`,
  'content-type': 'application/json',
};

// The bench reads what a run left on the server from the server itself, not through the API.
const records = runRecords(
  new Client({ connection: await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! }) }),
);

interface Run {
  input: string;
  runId: string;
  trackingId?: string;
  /** The run's event stream, open from start to finish in sequential runs. */
  events?: AsyncGenerator<{ type: string; trackingId?: string }>;
}

async function call<T>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = reviewer,
): Promise<T> {
  const res = await fetch(`${api}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/**
 * The run's events, resumed with Last-Event-ID whenever the stream drops before the run ends, as
 * an EventSource would do.
 */
async function* runEvents(runId: string): AsyncGenerator<{ type: string; trackingId?: string }> {
  let lastId = '';
  for (;;) {
    const res = await fetch(`${api}/api/runs/${runId}/events`, {
      headers: { ...reviewer, ...(lastId ? { 'last-event-id': lastId } : {}) },
    });
    if (res.status === 204 || !res.body) return;
    if (res.status !== 200) throw new Error(`events of ${runId}: ${res.status}`);
    for await (const event of readSse(res.body)) {
      if (event.event === 'end') return;
      if (event.id) lastId = event.id;
      yield JSON.parse(event.data) as { type: string; trackingId?: string };
    }
    console.warn(`bench: event stream of ${runId} dropped; resuming after event ${lastId || 'none'}`);
  }
}

/** Reads the stream up to the first event of `type`, leaving it open (a for-await would close it). */
async function until(events: AsyncGenerator<{ type: string; trackingId?: string }>, type: string) {
  for (;;) {
    const next = await events.next();
    if (next.done) throw new Error(`event stream ended before ${type}`);
    if (next.value.type === type) return next.value;
  }
}

const start = (input: string) =>
  call<{ runId: string }>('POST', '/api/runs', { agent: BENCH_AGENT, input }, requester);

serveDriver<Run>('countersign-rest', {
  async startPaused(input) {
    const { runId } = await start(input);
    const events = runEvents(runId);
    const requested = await until(events, 'approval.requested');
    return { input, runId, trackingId: requested.trackingId, events };
  },
  async startManyPaused(inputs, inFlight) {
    const runs = await pool(
      inputs,
      inFlight,
      async (input): Promise<Run> => ({ input, ...(await start(input)) }),
    );
    // A reviewer's view: the inbox list, read until every run shows its pending approval. In pages
    // of 1,000 runs, at most every 100 ms or a millisecond per ten runs, whichever is longer (a
    // second at 10,000): an inbox does not list 10,000 runs ten times a second, and the lists load
    // the server measured.
    const byRun = new Map(runs.map((run) => [run.runId, run]));
    const every = Math.max(100, runs.length / 10);
    let waiting = 0;
    while (waiting < runs.length) {
      const started = Date.now();
      waiting = 0;
      let pageToken = '';
      do {
        const page = await call<{
          approvals: { runId: string; trackingId: string }[];
          nextPageToken?: string;
        }>(
          'GET',
          `/api/approvals?status=pending&agent=${BENCH_AGENT}&limit=1000${pageToken ? `&pageToken=${pageToken}` : ''}`,
        );
        for (const approval of page.approvals) {
          const run = byRun.get(approval.runId);
          if (run) {
            run.trackingId = approval.trackingId;
            waiting++;
          }
        }
        pageToken = page.nextPageToken ?? '';
      } while (pageToken);
      if (waiting < runs.length) await sleep(Math.max(0, started + every - Date.now()));
    }
    return runs;
  },
  async approve(run) {
    // The first revision: nothing edits a proposal in the bench.
    await call(
      'POST',
      `/api/approvals/${run.trackingId}/decision`,
      { type: 'approve' },
      { ...reviewer, 'if-match': '"1"' },
    );
  },
  async finished(run) {
    const events = run.events ?? runEvents(run.runId);
    await until(events, 'run.finished');
    await events.return(undefined);
  },
  async answer(run) {
    return (await call<{ output?: string }>('GET', `/api/runs/${run.runId}`)).output ?? '';
  },
  inputOf: (run) => run.input,
  roundTrips: (run) => records.roundTrips(run.runId),
  runBytes: (run) => records.runBytes(run.runId),
  reads: {
    // The inbox's first page as the web app asks for it: the default page size (50 runs).
    firstPage: () => call('GET', '/api/approvals?status=pending').then(() => undefined),
    detail: (run) => call('GET', `/api/runs/${run.runId}`).then(() => undefined),
  },
  async openInbox() {
    const stop = new AbortController();
    const res = await fetch(`${api}/api/events`, { headers: reviewer, signal: stop.signal });
    if (res.status !== 200 || !res.body) throw new Error(`/api/events: ${res.status}`);
    // Read as a browser would, counting what comes.
    let received = 0;
    void (async () => {
      for await (const event of readSse(res.body!)) if (event.data) received++;
    })().catch(() => undefined);
    return () => {
      stop.abort();
      if (received > 0)
        console.warn(`bench: the inbox stream carried ${received} events while nothing happened`);
    };
  },
});
