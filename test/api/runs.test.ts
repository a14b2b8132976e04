import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call, calls, say } from '../support/fake-model.js';
import { tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.close();
});

const transfer = (amount: number) => calls(call('transfer', { from: 'ops', to: 'acme', amount }));

test('POST /api/runs starts a run: 201 with its id and location', async () => {
  stack.fake.script('runs: hello', say('Hello there.'));
  const answer = await stack.http('POST', '/api/runs', {
    token: tokens.alice,
    body: { agent: 'bank', input: 'runs: hello' },
  });
  assert.equal(answer.status, 201);
  assert.match(answer.body.runId, /^run-/);
  assert.equal(answer.headers.get('location'), `/api/runs/${answer.body.runId}`);
  const output = await stack.result(answer.body.runId);
  assert.equal(output.status, 'completed');

  const run = await stack.http('GET', `/api/runs/${answer.body.runId}`, { token: tokens.alice });
  assert.equal(run.status, 200);
  assert.equal(run.body.status, 'completed');
  assert.equal(run.body.output, 'Hello there.');
  assert.equal(run.body.requester, 'alice');
  assert.deepEqual(
    run.body.transcript.map((m: { role: string }) => m.role),
    ['system', 'user', 'assistant'],
  );
});

test('POST /api/runs refuses bad bodies and unknown agents with field errors', async () => {
  const unknown = await stack.http('POST', '/api/runs', {
    token: tokens.alice,
    body: { agent: 'nobody', input: 'x' },
  });
  assert.equal(unknown.status, 422);
  assert.equal(unknown.body.error.code, 'unknown_agent');
  assert.equal(unknown.body.error.fields[0].path, '/agent');
  const missing = await stack.http('POST', '/api/runs', { token: tokens.alice, body: { agent: 'bank' } });
  assert.equal(missing.status, 400);
  assert.deepEqual(
    missing.body.error.fields.map((f: { path: string }) => f.path),
    ['/input'],
  );
  const extra = await stack.http('POST', '/api/runs', {
    token: tokens.alice,
    body: { agent: 'bank', input: 'x', admin: true },
  });
  assert.equal(extra.status, 400);
});

test('only an admin may start a run on behalf of another requester', async () => {
  const refused = await stack.http('POST', '/api/runs', {
    token: tokens.bob,
    body: { agent: 'bank', input: 'runs: on behalf', requester: 'alice' },
  });
  assert.equal(refused.status, 403);
  stack.fake.script('runs: on behalf of carol', say('Hi Carol.'));
  const allowed = await stack.http('POST', '/api/runs', {
    token: tokens.alice,
    body: { agent: 'bank', input: 'runs: on behalf of carol', requester: 'carol' },
  });
  assert.equal(allowed.status, 201);
  assert.equal((await stack.state(allowed.body.runId)).requester, 'carol');
});

test('GET /api/runs/:runId shows a waiting run: status, transcript, pending approvals, audit', async () => {
  const runId = await stack.startRun('bank', 'runs: waiting', tokens.bob, transfer(1500), say('Sent.'));
  const [pending] = await stack.waitForPending(runId);
  const run = await stack.http('GET', `/api/runs/${runId}`, { token: tokens.alice });
  assert.equal(run.status, 200);
  assert.equal(run.body.status, 'waiting');
  assert.equal(run.body.pending.length, 1);
  assert.equal(run.body.pending[0].trackingId, pending!.trackingId);
  assert.equal(run.body.pending[0].tool, 'transfer');
  assert.ok(
    run.body.transcript.some(
      (m: { role: string; tool_calls?: unknown[] }) => m.role === 'assistant' && m.tool_calls,
    ),
  );
  assert.ok(
    run.body.audit.some(
      (e: { type: string; trackingId: string }) =>
        e.type === 'approval.requested' && e.trackingId === pending!.trackingId,
    ),
  );
  assert.ok(
    run.body.audit.every(
      (e: { type: string }) => e.type.startsWith('approval.') || e.type === 'decision.refused',
    ),
  );
});

test('GET /api/runs lists runs, filtered by agent and status', async () => {
  const opsRun = await stack.startRun(
    'ops',
    'runs: deploy',
    tokens.alice,
    calls(call('deploy', { service: 'web', version: '2' })),
    say('Deployed.'),
  );
  await stack.waitForPending(opsRun);
  type Listed = {
    runs: { runId: string; agent: string; status: string; pending: number; startedAt: string }[];
  };
  const waitingNow = (body: Listed) => body.runs.some((r) => r.runId === opsRun && r.status === 'waiting');
  const all = await stack.listUntil<Listed>('/api/runs', tokens.alice, waitingNow);
  const mine = all.runs.find((r) => r.runId === opsRun)!;
  assert.deepEqual(
    { agent: mine.agent, status: mine.status, pending: mine.pending },
    { agent: 'ops', status: 'waiting', pending: 1 },
  );
  assert.equal(typeof mine.startedAt, 'string');

  const ops = await stack.http('GET', '/api/runs?agent=ops', { token: tokens.alice });
  assert.ok(ops.body.runs.length >= 1);
  assert.ok(ops.body.runs.every((r: { agent: string }) => r.agent === 'ops'));

  const waiting = await stack.http('GET', '/api/runs?status=waiting', { token: tokens.alice });
  assert.ok(waiting.body.runs.some((r: { runId: string }) => r.runId === opsRun));
  assert.ok(waiting.body.runs.every((r: { status: string }) => r.status === 'waiting'));
  const completed = await stack.http('GET', '/api/runs?status=completed', { token: tokens.alice });
  assert.ok(completed.body.runs.every((r: { status: string }) => r.status === 'completed'));
  assert.ok(!completed.body.runs.some((r: { runId: string }) => r.runId === opsRun));

  const bad = await stack.http('GET', '/api/runs?status=sleeping', { token: tokens.alice });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.fields[0].path, '/status');
});

test('GET /api/runs filters by status exactly and pages: limit, pageToken, nextPageToken', async () => {
  const done = await stack.startRun('bank', 'runs: page done', tokens.alice, say('Nothing to do.'));
  assert.equal((await stack.result(done)).status, 'completed');
  // Newer runs of another status in front of it.
  const waiting: string[] = [];
  for (let i = 0; i < 5; i++) {
    const runId = await stack.startRun(
      'bank',
      `runs: page wait ${i}`,
      tokens.alice,
      transfer(2000 + i),
      say('x'),
    );
    await stack.waitForPending(runId);
    waiting.push(runId);
  }

  // Once the list shows the last waiting run, the newest completed run is the one this test finished.
  await stack.listUntil('/api/runs?status=waiting&agent=bank', tokens.alice, (body) =>
    waiting.every((runId) => body.runs.some((r: { runId: string }) => r.runId === runId)),
  );
  const first = await stack.http('GET', '/api/runs?status=completed&limit=1', { token: tokens.alice });
  assert.equal(first.status, 200);
  assert.deepEqual(
    first.body.runs.map((r: { runId: string; status: string }) => [r.runId, r.status]),
    [[done, 'completed']],
  );

  const listed: string[] = [];
  let pageToken: string | undefined;
  let pages = 0;
  do {
    const page = await stack.http(
      'GET',
      `/api/runs?status=waiting&agent=bank&limit=2${pageToken ? `&pageToken=${pageToken}` : ''}`,
      { token: tokens.alice },
    );
    assert.equal(page.status, 200);
    assert.ok(page.body.runs.length <= 2);
    assert.ok(
      page.body.runs.every(
        (r: { status: string; pending: number }) => r.status === 'waiting' && r.pending === 1,
      ),
    );
    listed.push(...page.body.runs.map((r: { runId: string }) => r.runId));
    pageToken = page.body.nextPageToken;
    pages++;
  } while (pageToken);
  assert.ok(pages >= 3, `${pages} pages of at most 2 runs`);
  assert.equal(new Set(listed).size, listed.length, 'no run listed twice');
  for (const runId of waiting) assert.ok(listed.includes(runId), `${runId} listed`);

  const tampered = await stack.http('GET', '/api/runs?status=waiting&pageToken=bm90LWEtdG9rZW4', {
    token: tokens.alice,
  });
  assert.equal(tampered.status, 422);
  assert.equal(tampered.body.error.code, 'invalid_page_token');
});

test('POST /api/runs/:runId/cancel settles pending approvals as cancelled and ends the run', async () => {
  const runId = await stack.startRun('bank', 'runs: cancel me', tokens.bob, transfer(2000), say('never'));
  const [pending] = await stack.waitForPending(runId);
  const cancel = await stack.http('POST', `/api/runs/${runId}/cancel`, { token: tokens.alice });
  assert.equal(cancel.status, 202);
  assert.deepEqual(cancel.body, { runId, status: 'cancelling' });
  const output = await stack.result(runId).catch(() => ({ status: 'cancelled' }));
  assert.equal(output.status, 'cancelled');

  const run = await stack.http('GET', `/api/runs/${runId}`, { token: tokens.alice });
  assert.equal(run.body.status, 'cancelled');
  assert.equal(run.body.pending.length, 0);
  const approval = await stack.http('GET', `/api/approvals/${pending!.trackingId}`, { token: tokens.alice });
  assert.equal(approval.body.status, 'cancelled');

  const again = await stack.http('POST', `/api/runs/${runId}/cancel`, { token: tokens.alice });
  assert.equal(again.status, 409);
  await stack.listUntil('/api/runs?status=cancelled', tokens.alice, (body) =>
    body.runs.some((r: { runId: string }) => r.runId === runId),
  );
});

test('unknown runs are 404s', async () => {
  for (const [method, route] of [
    ['GET', '/api/runs/run-does-not-exist'],
    ['POST', '/api/runs/run-does-not-exist/cancel'],
    ['GET', '/api/runs/not%20an%20id'],
  ] as const) {
    const answer = await stack.http(method, route, { token: tokens.alice });
    assert.equal(answer.status, 404, `${method} ${route}`);
    assert.equal(answer.body.error.code, 'not_found');
  }
});
