import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import { countersignRouter, type Authenticate } from '../../api/create-api.js';
import { signLink } from '../../notify/links.js';
import type { ApproverIdentity, RunState } from '../../protocol/index.js';
import { call, calls, say } from '../support/fake-model.js';
import { apiTestAgents, toolRuns, tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A host's own sessions, as the README shows: a cookie names the person. A browser sends that
 * cookie with a form posted from any site, so every state-changing route must refuse a request a
 * page of another site sent, and take the same request from the host's own pages.
 */

const people: Record<string, ApproverIdentity> = {
  'sid-alice': { id: 'alice', roles: ['admin'] },
  'sid-bob': { id: 'bob', roles: ['treasurer'] },
  'sid-sam': { id: 'sam', roles: ['support'] },
};
const authenticate: Authenticate = (req) =>
  people[/(?:^|;\s*)sid=([^;]*)/.exec(req.get('cookie') ?? '')?.[1] ?? ''];

/** Where people reach the service (behind a proxy); the test reaches it at its own address too. */
const PUBLIC_ORIGIN = 'https://ops.example.com';

/** What browsers send with a request a page of another site makes. */
const crossSite: Record<string, Record<string, string>> = {
  'a form on another site': { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
  'the same, from a browser without Sec-Fetch-Site': { origin: 'https://evil.example' },
  'a sibling host of the same site': { 'sec-fetch-site': 'same-site', origin: 'https://blog.example.com' },
  'a sandboxed frame': { 'sec-fetch-site': 'cross-site', origin: 'null' },
  'a sandboxed frame, without Sec-Fetch-Site': { origin: 'null' },
};

let stack: Stack;
let server: Server;
let base: string;
/** What browsers send with a request of the service's own pages, or what a client that is no browser sends. */
let sameSite: Record<string, Record<string, string>>;

before(async () => {
  stack = await startStack();
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const app = express();
  app.use(
    '/approvals',
    countersignRouter({
      client: stack.client,
      taskQueue: stack.taskQueue,
      agents: apiTestAgents,
      authenticate,
      findApprover: (id) => Object.values(people).find((person) => person.id === id),
      signingSecret: stack.signingSecret,
      publicUrl: `${PUBLIC_ORIGIN}/approvals`,
    }),
  );
  server.on('request', app);
  sameSite = {
    'the inbox': { 'sec-fetch-site': 'same-origin', origin: base },
    'the public origin, without Sec-Fetch-Site': { origin: PUBLIC_ORIGIN },
    "the request's own origin, without Sec-Fetch-Site": { origin: base },
    'an address the person typed': { 'sec-fetch-site': 'none' },
    'no browser (the CLI, curl)': {},
  };
});
after(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await stack?.close();
});

/**
 * A POST to the mounted router with a session cookie. Without `json`, it is what a form with no
 * fields sends: the routes that take no body accept it, so only the origin check can stop it.
 */
async function post(route: string, session: string, headers: Record<string, string>, json?: unknown) {
  const response = await fetch(`${base}/approvals${route}`, {
    method: 'POST',
    headers: {
      cookie: `sid=${session}`,
      'content-type': json === undefined ? 'application/x-www-form-urlencoded' : 'application/json',
      ...headers,
    },
    body: json === undefined ? '' : JSON.stringify(json),
  });
  const text = await response.text();
  const isJson = response.headers.get('content-type')?.startsWith('application/json');
  return { status: response.status, text, body: isJson ? JSON.parse(text) : undefined };
}

function assertRefused(answer: Awaited<ReturnType<typeof post>>, what: string): void {
  assert.equal(answer.status, 403, `${what}: ${answer.text}`);
  assert.equal(answer.body.error.code, 'cross_site_request', what);
}

async function waitForState(runId: string, ready: (state: RunState) => boolean): Promise<RunState> {
  for (let tries = 0; tries < 600; tries++) {
    const state = await stack.state(runId);
    if (ready(state)) return state;
    await sleep(50);
  }
  throw new Error(`run ${runId} never reached the state the test waits for`);
}

const count = (state: RunState, type: string) => state.events.filter((e) => e.type === type).length;

async function pendingRun(input: string) {
  const runId = await stack.startRun(
    'bank',
    input,
    tokens.alice,
    calls(call('transfer', { from: 'ops', to: 'acme', amount: 2000 })),
    say('Sent.'),
  );
  const [pending] = await stack.waitForPending(runId);
  return { runId, trackingId: pending!.trackingId };
}

test("another site cannot pause, resume or cancel a run with the session cookie; the service's own page can", async () => {
  const { runId } = await pendingRun('cross-site: control');
  const own = sameSite['the inbox']!;

  for (const [what, headers] of Object.entries(crossSite))
    assertRefused(await post(`/api/runs/${runId}/pause`, 'sid-bob', headers), `pause from ${what}`);
  const unpaused = await stack.state(runId);
  assert.equal(unpaused.status, 'waiting');
  assert.equal(count(unpaused, 'run.paused'), 0);
  assert.equal((await post(`/api/runs/${runId}/pause`, 'sid-bob', own)).status, 202);
  const paused = await waitForState(runId, (s) => s.status === 'paused');
  assert.equal(count(paused, 'run.paused'), 1);

  for (const [what, headers] of Object.entries(crossSite))
    assertRefused(await post(`/api/runs/${runId}/resume`, 'sid-bob', headers), `resume from ${what}`);
  const stillPaused = await stack.state(runId);
  assert.equal(stillPaused.status, 'paused');
  assert.equal(count(stillPaused, 'run.resumed'), 0);
  assert.equal((await post(`/api/runs/${runId}/resume`, 'sid-bob', own)).status, 202);
  const resumed = await waitForState(runId, (s) => s.status === 'waiting' && count(s, 'run.resumed') === 1);

  for (const [what, headers] of Object.entries(crossSite))
    assertRefused(await post(`/api/runs/${runId}/cancel`, 'sid-bob', headers), `cancel from ${what}`);
  const uncancelled = await stack.state(runId);
  assert.equal(uncancelled.status, 'waiting');
  assert.equal(uncancelled.pending.length, 1, 'its approval is still pending');
  assert.equal(uncancelled.events.length, resumed.events.length, 'nothing was recorded');
  assert.equal((await post(`/api/runs/${runId}/cancel`, 'sid-bob', own)).status, 202);
  const output = await stack.result(runId).catch(() => ({ status: 'cancelled' }));
  assert.equal(output.status, 'cancelled');
});

test("another site cannot decide an approval with the session cookie; the service's own page can", async () => {
  const { runId, trackingId } = await pendingRun('cross-site: decide');
  const shown = await fetch(`${base}/approvals/api/approvals/${trackingId}`, {
    headers: { cookie: 'sid=sid-bob' },
  });
  const ifMatch = shown.headers.get('etag')!;
  const decide = (headers: Record<string, string>) =>
    post(
      `/api/approvals/${trackingId}/decision`,
      'sid-bob',
      { 'if-match': ifMatch, ...headers },
      {
        type: 'approve',
      },
    );

  for (const [what, headers] of Object.entries(crossSite))
    assertRefused(await decide(headers), `decision from ${what}`);
  const undecided = await stack.state(runId);
  assert.equal(undecided.pending.length, 1);
  assert.equal(undecided.pending[0]!.approvals.length, 0, 'no sign-off was taken');
  assert.equal(count(undecided, 'approval.decided'), 0);

  const approved = await decide(sameSite['the inbox']!);
  assert.equal(approved.status, 200, approved.text);
  assert.equal((await stack.result(runId)).status, 'completed');
  assert.equal(toolRuns.filter((r) => r.runId === runId).length, 1);
});

test("another site cannot start a run with the session cookie; the service's own page can", async () => {
  const input = 'cross-site: start';
  stack.fake.script(input, say('Started.'));
  for (const [what, headers] of Object.entries(crossSite))
    assertRefused(
      await post('/api/runs', 'sid-sam', headers, { agent: 'bank', input }),
      `start from ${what}`,
    );
  const started = await post('/api/runs', 'sid-sam', sameSite['the inbox']!, { agent: 'bank', input });
  assert.equal(started.status, 201, started.text);
  assert.equal((await stack.result(started.body.runId)).status, 'completed');
  // sam may read only the runs he started: the list, once it shows this one, shows no other.
  const runs = await waitFor(async () => {
    const list = await fetch(`${base}/approvals/api/runs`, { headers: { cookie: 'sid=sid-sam' } });
    const body = (await list.json()) as { runs: { runId: string }[] };
    return body.runs.some((r) => r.runId === started.body.runId) ? body.runs : undefined;
  }, 'the list to show the started run');
  assert.deepEqual(
    runs.map((r) => r.runId),
    [started.body.runId],
  );
});

test('every way a request comes from the service itself, or from no browser, changes state', async () => {
  const { runId } = await pendingRun('cross-site: allowed');
  const ways = Object.entries(sameSite);
  for (const [index, [what, headers]] of ways.entries()) {
    const action = index % 2 === 0 ? 'pause' : 'resume';
    const answer = await post(`/api/runs/${runId}/${action}`, 'sid-bob', headers);
    assert.equal(answer.status, 202, `${action} from ${what}: ${answer.text}`);
    await waitForState(runId, (s) => s.status === (action === 'pause' ? 'paused' : 'waiting'));
  }
  const state = await stack.state(runId);
  assert.equal(count(state, 'run.paused') + count(state, 'run.resumed'), ways.length);
});

test("an email link still decides with what a browser sends from the link's confirmation page", async () => {
  const { runId, trackingId } = await pendingRun('cross-site: link');
  const link = signLink(stack.signingSecret, {
    trackingId,
    approverId: 'bob',
    action: 'approve',
    expiresAt: Date.now() + 60_000,
    revision: (await stack.state(runId)).pending[0]!.revision,
  });
  // The page's own form, posted under its `Referrer-Policy: no-referrer`: the origin is sent as null.
  const answer = await post(`/links/${link}`, 'none', { 'sec-fetch-site': 'same-origin', origin: 'null' });
  assert.equal(answer.status, 200, answer.text);
  assert.equal((await stack.result(runId)).status, 'completed');
});

test('the OpenAPI document declares the refusal on every state-changing route', async () => {
  const doc = (await (await fetch(`${base}/approvals/api/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
  };
  for (const route of [
    '/api/runs',
    '/api/runs/{runId}/cancel',
    '/api/runs/{runId}/pause',
    '/api/runs/{runId}/resume',
    '/api/approvals/{trackingId}/decision',
  ]) {
    assert.match(doc.paths[route]!.post!.responses['403']?.description ?? '', /cross_site_request/, route);
  }
});
