import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createApi } from '../../api/create-api.js';
import { signLink } from '../../notify/links.js';
import type { ApproverIdentity } from '../../protocol/index.js';
import { call, calls, say } from '../support/fake-model.js';
import { apiTestAgents, tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';

/**
 * An identity the host's `authenticate` (or `findApprover`) gives that the protocol cannot carry
 * is refused with a 403 naming the rule, on every route, never a 500; one at the limits is carried.
 */

const groups = (count: number) => Array.from({ length: count }, (_, i) => `group-${i}`);
const identities: Record<string, ApproverIdentity> = {
  backslash: { id: 'corp\\lee', roles: ['treasurer'] },
  long: { id: 'l'.repeat(201), roles: ['treasurer'] },
  roles: { id: 'many-roles', roles: [...groups(50), 'treasurer'] },
  // At every limit, and with a field of the host's own user object, which is dropped.
  edge: {
    id: 'e'.repeat(200),
    roles: [...groups(49), 'treasurer'],
    session: 'host-only',
  } as ApproverIdentity,
};
const rules = {
  backslash: /\/id: no control characters or backslashes/,
  long: /\/id: at most 200 characters/,
  roles: /\/roles: at most 50 roles/,
};

let stack: Stack;
let server: Server;
let url: string;
before(async () => {
  stack = await startStack();
  // The host's own API on the stack's Temporal: its sessions name whoever a bearer token says.
  const app = createApi({
    client: stack.client,
    taskQueue: stack.taskQueue,
    agents: apiTestAgents,
    authenticate: (req) => identities[/^Bearer (\S+)$/.exec(req.get('authorization') ?? '')?.[1] ?? ''],
    findApprover: (id) => Object.values(identities).find((identity) => identity.id === id),
    signingSecret: stack.signingSecret,
    publicUrl: 'http://127.0.0.1',
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

async function send(method: string, route: string, who: string, body?: unknown, headers = {}) {
  const response = await fetch(url + route, {
    method,
    headers: {
      authorization: `Bearer ${who}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text, body: text.startsWith('{') ? JSON.parse(text) : undefined };
}

async function pendingTransfer(input: string) {
  const runId = await stack.startRun(
    'bank',
    input,
    tokens.victor,
    calls(call('transfer', { from: 'ops', to: 'acme', amount: 1500 })),
    say('Done.'),
  );
  const [pending] = await stack.waitForPending(runId);
  return { runId, trackingId: pending!.trackingId };
}

test('an identity the protocol cannot carry is a 403 naming the rule, on every route; one at its limits is carried', async () => {
  const { runId, trackingId } = await pendingTransfer('identities: refused');
  const routes: [string, string, unknown?, Record<string, string>?][] = [
    ['GET', '/api/me'],
    ['GET', '/api/runs'],
    ['GET', `/api/runs/${runId}`],
    ['POST', '/api/runs', { agent: 'bank', input: 'identities: start' }],
    ['POST', `/api/runs/${runId}/cancel`],
    ['POST', `/api/runs/${runId}/pause`],
    ['GET', `/api/runs/${runId}/events`],
    ['GET', '/api/events'],
    ['GET', '/api/approvals'],
    ['GET', `/api/approvals/${trackingId}`],
    ['POST', `/api/approvals/${trackingId}/decision`, { type: 'approve' }, { 'if-match': '"1"' }],
    ['GET', '/api/agents'],
    ['POST', '/api/codec/decode', { payloads: [] }],
  ];
  for (const [who, rule] of Object.entries(rules)) {
    for (const [method, route, body, headers] of routes) {
      const answer = await send(method, route, who, body, headers);
      assert.equal(answer.status, 403, `${who}: ${method} ${route}: ${answer.text}`);
      assert.equal(answer.body.error.code, 'identity_not_supported');
      assert.match(answer.body.error.message, rule);
    }
    // An email link signed for such an approver is refused the same way when it is used (an id
    // too long for a link's claims makes the link itself invalid).
    if (who === 'long') continue;
    const link = signLink(stack.signingSecret, {
      trackingId,
      approverId: identities[who]!.id,
      action: 'approve',
      expiresAt: Date.now() + 60_000,
      revision: 1,
    });
    const used = await fetch(`${url}/links/${link}`, { method: 'POST' });
    assert.equal(used.status, 403, `${who}: the link`);
  }
  // Nothing was decided or cancelled.
  const state = await stack.state(runId);
  assert.equal(state.status, 'waiting');
  assert.equal(state.pending[0]!.approvals.length, 0);

  // One at every limit is carried: it lists, starts and decides.
  const edgeCall = await pendingTransfer('identities: edge');
  const me = await send('GET', '/api/me', 'edge');
  assert.equal(me.status, 200, me.text);
  assert.equal(me.body.approver.id, identities.edge!.id);
  assert.ok(!me.text.includes('host-only'));
  const list = await send('GET', '/api/runs', 'edge');
  assert.equal(list.status, 200, list.text);
  stack.fake.script('identities: edge start', say('Nothing to do.'));
  const started = await send('POST', '/api/runs', 'edge', { agent: 'bank', input: 'identities: edge start' });
  assert.equal(started.status, 201, started.text);
  const decided = await send(
    'POST',
    `/api/approvals/${edgeCall.trackingId}/decision`,
    'edge',
    { type: 'approve' },
    { 'if-match': '"1"' },
  );
  assert.equal(decided.status, 200, decided.text);
  assert.equal(decided.body.outcome.accepted, true, decided.text);
});
