import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createApi } from '../../api/create-api.js';
import { apiTestAgents, tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { openSse, type SseStream } from './sse-reader.js';

/**
 * The event streams one caller, and every caller together, may hold open are bounded: past the
 * bound a stream is a 429 with Retry-After, and a closed stream frees its slot.
 */

let stack: Stack;
let server: Server;
let url: string;
before(async () => {
  stack = await startStack();
  // An API of its own on the stack's Temporal, with bounds small enough to reach.
  const app = createApi({
    client: stack.client,
    taskQueue: stack.taskQueue,
    agents: apiTestAgents,
    approvers: stack.approvers,
    signingSecret: stack.signingSecret,
    publicUrl: 'http://127.0.0.1',
    eventStreams: { perCaller: 3, total: 5 },
  });
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server?.closeAllConnections();
  server?.close();
  await stack?.close();
});

const open: SseStream[] = [];
const stream = async (route: string, token: string) => {
  const opened = await openSse(url + route, token);
  open.push(opened);
  return opened;
};
after(() => open.forEach((s) => s.close()));

/** A stream the API refuses: its answer, read whole (one it opens is closed at once). */
async function refused(route: string, token: string) {
  const response = await fetch(url + route, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
  });
  const retryAfter = response.headers.get('retry-after');
  if (response.status === 200) {
    await response.body?.cancel();
    return { status: 200, retryAfter, body: undefined };
  }
  const body = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, retryAfter, body };
}

test('one caller past the bound gets 429, another still gets a stream, and closing one frees a slot', async () => {
  // Answers that are not streams (here a run that is not there) hold no slot once answered.
  for (let i = 0; i < 5; i++) {
    const answer = await refused('/api/runs/no-such-run/events', tokens.bob);
    assert.equal(answer.status, 404);
  }

  const alice = [];
  for (let i = 0; i < 3; i++) alice.push(await stream('/api/events', tokens.alice));
  for (const s of alice) assert.equal(s.status, 200);
  for (const route of ['/api/events', '/api/runs/no-such-run/events']) {
    const past = await refused(route, tokens.alice);
    assert.equal(past.status, 429, route);
    assert.equal(past.body?.error.code, 'too_many_streams');
    assert.match(past.body!.error.message, /3 open, the most one caller may/);
    assert.ok(Number(past.retryAfter) > 0);
  }

  // Another caller still gets one, up to the bound of every caller together.
  assert.equal((await stream('/api/events', tokens.bob)).status, 200);
  assert.equal((await stream('/api/events', tokens.bob)).status, 200);
  const full = await refused('/api/events', tokens.victor);
  assert.equal(full.status, 429);
  assert.equal(full.body?.error.code, 'too_many_streams');
  assert.match(full.body!.error.message, /this server holds 5/);

  // A stream closed by its subscriber frees its slot: Victor gets one, then Alice is at her bound again.
  alice[0]!.close();
  const victor = await waitFor(async () => {
    const s = await openSse(`${url}/api/events`, tokens.victor);
    if (s.status === 200) return s;
    s.close();
    return undefined;
  }, 'a slot freed by a closed stream');
  open.push(victor);
  assert.equal((await refused('/api/events', tokens.alice)).status, 429);
});
