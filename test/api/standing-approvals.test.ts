import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { RunState } from '../../protocol/index.js';
import { apiTestAgents, tokens } from '../support/api-agents.js';
import { pettyCash, startRefills } from '../support/petty-cash.js';
import { call, calls, say } from '../support/fake-model.js';
import { startStack, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

let stack: Stack;
before(async () => {
  stack = await startStack({ agents: [...apiTestAgents, pettyCash] });
});
after(async () => {
  await stack?.close();
});

const eventTypes = (state: { events: RunState['events'] }) => state.events.map((e) => e.type);

test('a channel refuses standing on a tool whose policy offers none, and changes nothing', async () => {
  const runId = await stack.startRun(
    'bank',
    'standing: refused',
    tokens.bob,
    calls(call('transfer', { from: 'ops', to: 'acme', amount: 10 }, 't1')),
    say('Sent.'),
  );
  const [approval] = await stack.waitForPending(runId, 1);
  assert.equal(approval!.standing, undefined, 'the approval offers no standing approval');
  const refused = await stack.http('POST', `/api/approvals/${approval!.trackingId}/decision`, {
    token: tokens.alice,
    body: { type: 'approve', standing: true },
  });
  assert.equal(refused.status, 400, refused.text);
  assert.equal(refused.body.error.code, 'standing_not_allowed');
  const state = await stack.state(runId);
  assert.equal(state.pending.length, 1, 'still waiting');
  assert.equal(state.standing, undefined);
  const approved = await stack.http('POST', `/api/approvals/${approval!.trackingId}/decision`, {
    token: tokens.alice,
    body: { type: 'approve' },
  });
  assert.equal(approved.status, 200, approved.text);
});

test('the run view shows a standing approval; a treasurer revokes it through the API, and the next call like it asks', async () => {
  const runId = await startRefills(stack, 'standing: revoked');
  const [first] = await stack.waitForPending(runId, 1);
  assert.deepEqual(first!.standing, { maxSeconds: 3600, maxCalls: 5 });
  const granted = await stack.http('POST', `/api/approvals/${first!.trackingId}/decision`, {
    token: tokens.bob,
    body: { type: 'approve', standing: true },
  });
  assert.equal(granted.status, 200, granted.text);

  const [noted] = await waitFor(async () => {
    const pending = (await stack.state(runId)).pending;
    return pending[0]?.toolCallId === 'n1' ? pending : undefined;
  }, 'the note waits');
  const view = await stack.http('GET', `/api/runs/${runId}`, { token: tokens.victor });
  assert.equal(view.status, 200, view.text);
  const [standing] = view.body.standing;
  assert.deepEqual(
    [standing.trackingId, standing.status, standing.covered, standing.grantedBy],
    [first!.trackingId, 'active', ['r2'], ['bob']],
  );
  const audit = view.body.audit.map((e: { type: string }) => e.type);
  assert.ok(audit.includes('standing.granted') && audit.includes('standing.used'), audit.join(', '));

  const revoke = `/api/runs/${runId}/standing/${first!.trackingId}/revoke`;
  // The requester reads the run, but holds no role the approval asked for.
  const notTheirs = await stack.http('POST', revoke, { token: tokens.victor });
  assert.equal(notTheirs.status, 403, notTheirs.text);
  assert.equal(notTheirs.body.error.code, 'role_not_allowed');
  const revoked = await stack.http('POST', revoke, { token: tokens.bob });
  assert.equal(revoked.status, 202, revoked.text);
  assert.deepEqual(revoked.body, { runId, trackingId: first!.trackingId, status: 'revoking' });
  const after = await waitFor(async () => {
    const state = await stack.state(runId);
    return state.standing?.[0]?.status === 'revoked' ? state : undefined;
  }, 'the standing approval revoked');
  assert.deepEqual(after.standing?.[0]?.revokedBy?.actor, 'bob');
  const entry = after.events.find((e) => e.type === 'standing.revoked');
  assert.deepEqual([entry?.actor, entry?.channel, entry?.trackingId], ['bob', 'api', first!.trackingId]);
  const again = await stack.http('POST', revoke, { token: tokens.bob });
  assert.equal(again.status, 409, again.text);
  assert.equal(again.body.error.code, 'standing_ended');

  await stack.http('POST', `/api/approvals/${noted!.trackingId}/decision`, {
    token: tokens.bob,
    body: { type: 'approve' },
  });
  const [third] = await waitFor(async () => {
    const pending = (await stack.state(runId)).pending;
    return pending[0]?.toolCallId === 'r3' ? pending : undefined;
  }, 'the third refill asks');
  await stack.http('POST', `/api/approvals/${third!.trackingId}/decision`, {
    token: tokens.bob,
    body: { type: 'reject', message: 'enough for today' },
  });
  const result = await stack.result(runId);
  assert.equal(result.status, 'completed');
  assert.deepEqual(
    eventTypes(result.state!).filter((t) => t.startsWith('standing.')),
    ['standing.granted', 'standing.used', 'standing.revoked'],
  );
});

test('the OpenAPI document lists the revocation route and the standing fields', async () => {
  const doc = await stack.http('GET', '/api/openapi.json', { token: tokens.alice });
  const route = doc.body.paths['/api/runs/{runId}/standing/{trackingId}/revoke'];
  assert.equal(route?.post?.operationId, 'revokeStanding');
  const schemas = doc.body.components.schemas;
  assert.ok(schemas.RunState.properties.standing, 'RunState.standing');
  assert.ok(schemas.ApprovalView.properties.standing, 'ApprovalView.standing');
  assert.ok(schemas.ApprovalPolicy.properties.standing, 'ApprovalPolicy.standing');
});
