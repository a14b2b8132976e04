import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { call, calls, say } from '../support/fake-model.js';
import { decide as decideWithApi, refusal } from '../../api/decide.js';
import { requestIdFor } from '../../api/routes/approvals.js';
import { apiTestAgents, testApprovers, toolRuns, tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.close();
});

const proposal = { from: 'ops', to: 'acme', amount: 1500, memo: 'invoice 7' };

/** A bank run waiting on one transfer approval. */
async function waitingTransfer(input: string) {
  const runId = await stack.startRun(
    'bank',
    input,
    tokens.victor,
    calls(call('transfer', proposal)),
    say('Done.'),
  );
  const [pending] = await stack.waitForPending(runId);
  return { runId, trackingId: pending!.trackingId };
}

/** The API's decision path called directly, so its wait for the outcome can be zero. */
async function decideDirect(trackingId: string, key: string) {
  const alice = testApprovers.find((a) => a.id === 'alice')!;
  const { outcome } = await decideWithApi(
    { client: stack.client, agents: apiTestAgents, waitMs: 0 },
    {
      trackingId,
      decision: { type: 'approve' },
      approver: alice,
      channel: 'api',
      requestId: requestIdFor(alice.id, key),
      idempotent: true,
      revision: 1,
    },
  );
  if (outcome && !outcome.accepted) throw refusal(outcome);
  return outcome;
}

const decide = (trackingId: string, body: unknown, token = tokens.alice, headers?: Record<string, string>) =>
  stack.http('POST', `/api/approvals/${trackingId}/decision`, { token, body, headers });

test('GET /api/approvals lists pending approvals from run memos, with filters', async () => {
  const { trackingId } = await waitingTransfer('approvals: list');
  const opsRun = await stack.startRun(
    'ops',
    'approvals: list ops',
    tokens.alice,
    calls(call('deploy', { service: 'api', version: '9' })),
    say('ok'),
  );
  const [deploy] = await stack.waitForPending(opsRun);

  const trackingIds = (body: { approvals: { trackingId: string }[] }) =>
    body.approvals.map((a) => a.trackingId);
  const pending = await stack.listUntil('/api/approvals', tokens.alice, (body) =>
    [trackingId, deploy!.trackingId].every((id) => trackingIds(body).includes(id)),
  );
  assert.ok(pending.approvals.every((a: { status: string }) => a.status === 'pending'));

  const byTool = await stack.http('GET', '/api/approvals?status=pending&tool=deploy', {
    token: tokens.alice,
  });
  assert.deepEqual([...new Set(byTool.body.approvals.map((a: { tool: string }) => a.tool))], ['deploy']);
  const byAgent = await stack.http('GET', '/api/approvals?agent=bank', { token: tokens.alice });
  assert.ok(byAgent.body.approvals.every((a: { agent: string }) => a.agent === 'bank'));
  assert.ok(byAgent.body.approvals.some((a: { trackingId: string }) => a.trackingId === trackingId));
  const byRole = await stack.http('GET', '/api/approvals?role=treasurer', { token: tokens.alice });
  assert.ok(byRole.body.approvals.some((a: { trackingId: string }) => a.trackingId === trackingId));
  assert.ok(!byRole.body.approvals.some((a: { trackingId: string }) => a.trackingId === deploy!.trackingId));

  const bad = await stack.http('GET', '/api/approvals?status=someday', { token: tokens.alice });
  assert.equal(bad.status, 400);

  // A page a run: every pending approval comes, page after page, each once.
  const paged: string[] = [];
  let pageToken = '';
  let pages = 0;
  do {
    const page = await stack.http(
      'GET',
      `/api/approvals?limit=1${pageToken ? `&pageToken=${pageToken}` : ''}`,
      { token: tokens.alice },
    );
    assert.equal(page.status, 200, page.text);
    paged.push(...page.body.approvals.map((a: { trackingId: string }) => a.trackingId));
    pageToken = page.body.nextPageToken ?? '';
    pages++;
  } while (pageToken && pages < 100);
  assert.ok(pages >= 2, `${pages} page(s)`);
  assert.ok(paged.includes(trackingId) && paged.includes(deploy!.trackingId));
  assert.equal(new Set(paged).size, paged.length);
  assert.deepEqual(new Set(paged), new Set(trackingIds(pending)));

  for (const token of ['not+base64', 'x'.repeat(5000)]) {
    const refused = await stack.http('GET', `/api/approvals?pageToken=${encodeURIComponent(token)}`, {
      token: tokens.alice,
    });
    assert.equal(refused.status, 400, token.slice(0, 20));
  }
  // Well-formed, but not one this API handed out: no schema tells it apart.
  const tampered = await stack.http('GET', '/api/approvals?pageToken=AAAAAAAA', { token: tokens.alice });
  assert.equal(tampered.status, 422, tampered.text);
  assert.equal(tampered.body.error.code, 'invalid_page_token');
});

test('GET /api/approvals/:trackingId shows the proposal, schema and policy; unknown ids are 404', async () => {
  const { runId, trackingId } = await waitingTransfer('approvals: show');
  const answer = await stack.http('GET', `/api/approvals/${trackingId}`, { token: tokens.bob });
  assert.equal(answer.status, 200);
  const a = answer.body;
  assert.equal(a.trackingId, trackingId);
  assert.equal(a.runId, runId);
  assert.equal(a.agent, 'bank');
  assert.equal(a.tool, 'transfer');
  assert.deepEqual(a.args, proposal);
  assert.equal(a.status, 'pending');
  assert.equal(a.schema.type, 'object');
  assert.deepEqual(a.editableFields, ['amount', 'memo']);
  assert.deepEqual(a.decisions, []);

  for (const id of [`${runId}.99`, 'run-nobody.1', 'not-a-tracking-id']) {
    const missing = await stack.http('GET', `/api/approvals/${id}`, { token: tokens.alice });
    assert.equal(missing.status, 404, id);
  }
});

test('decision errors: 400 body, 400 not allowed, 403 role, 404 unknown or unreadable', async () => {
  const { trackingId } = await waitingTransfer('approvals: errors');
  const noType = await decide(trackingId, { message: 'hi' });
  assert.equal(noType.status, 400);
  assert.ok(noType.body.error.fields.length > 0);

  // Victor asked for the transfer, so he reads it, but holds no role that decides it.
  const viewer = await decide(trackingId, { type: 'approve' }, tokens.victor);
  assert.equal(viewer.status, 403);
  assert.equal(viewer.body.error.code, 'role_not_allowed');

  const opsRun = await stack.startRun(
    'ops',
    'approvals: errors ops',
    tokens.alice,
    calls(call('deploy', { service: 'db', version: '3' })),
    say('ok'),
  );
  const [deploy] = await stack.waitForPending(opsRun);
  const edit = await decide(deploy!.trackingId, { type: 'edit', args: { service: 'db', version: '4' } });
  assert.equal(edit.status, 400);
  assert.equal(edit.body.error.code, 'decision_not_allowed');
  // Bob may not read alice's deploy: not even the role it needs is his to learn.
  const unreadable = await decide(deploy!.trackingId, { type: 'approve' }, tokens.bob);
  assert.equal(unreadable.status, 404);
  assert.equal(unreadable.body.error.code, 'unknown_approval');
  // He reads the deploys he asked for, and deploys need an admin: a 403 that names the role.
  const bobsDeploy = await stack.startRun(
    'ops',
    'approvals: errors bob deploys',
    tokens.bob,
    calls(call('deploy', { service: 'db', version: '5' })),
    say('ok'),
  );
  const [bobsPending] = await stack.waitForPending(bobsDeploy);
  const treasurer = await decide(bobsPending!.trackingId, { type: 'approve' }, tokens.bob);
  assert.equal(treasurer.status, 403);
  assert.equal(treasurer.body.error.code, 'role_not_allowed');
  assert.match(treasurer.body.error.message, /admin/);

  // Bob asked for this transfer: he may not approve it himself (the workflow's check, mapped to 403).
  const own = await stack.startRun(
    'bank',
    'approvals: own',
    tokens.bob,
    calls(call('transfer', proposal)),
    say('ok'),
  );
  const [ownPending] = await stack.waitForPending(own);
  const self = await decide(ownPending!.trackingId, { type: 'approve' }, tokens.bob);
  assert.equal(self.status, 403);
  assert.equal(self.body.error.code, 'self_approval');

  const unknown = await decide(`${opsRun}.42`, { type: 'approve' });
  assert.equal(unknown.status, 404);
  const malformed = await decide('nonsense', { type: 'approve' });
  assert.equal(malformed.status, 404);

  const still = await stack.http('GET', `/api/approvals/${trackingId}`, { token: tokens.alice });
  assert.equal(still.body.status, 'pending');
});

test('an invalid edit is a 400 with field errors before any signal; a valid edit is applied (200)', async () => {
  const { runId, trackingId } = await waitingTransfer('approvals: edit');
  const invalid = await decide(trackingId, { type: 'edit', args: { ...proposal, amount: -5 } });
  assert.equal(invalid.status, 400);
  assert.equal(invalid.body.error.code, 'invalid_arguments');
  assert.deepEqual(
    invalid.body.error.fields.map((f: { path: string }) => f.path),
    ['/args/amount'],
  );
  const locked = await decide(trackingId, { type: 'edit', args: { ...proposal, to: 'mallory' } });
  assert.equal(locked.status, 400);
  assert.deepEqual(
    locked.body.error.fields.map((f: { path: string }) => f.path),
    ['/args/to'],
  );
  // Nothing reached the run: its audit trail has no refused decision.
  const before = await stack.state(runId);
  assert.ok(!before.events.some((e) => e.type === 'decision.refused'));

  const valid = await decide(trackingId, { type: 'edit', args: { ...proposal, amount: 900 } }, tokens.bob);
  assert.equal(valid.status, 200);
  assert.equal(valid.body.outcome.accepted, true);
  assert.equal(valid.body.outcome.status, 'edited');
  const output = await stack.result(runId);
  assert.equal(output.status, 'completed');
  assert.deepEqual(
    toolRuns.filter((r) => r.runId === runId).map((r) => r.args.amount),
    [900],
  );

  const shown = await stack.http('GET', `/api/approvals/${trackingId}`, { token: tokens.alice });
  assert.equal(shown.body.status, 'edited');
  const decided = shown.body.decisions.find((e: { type: string }) => e.type === 'approval.decided');
  assert.equal(decided.actor, 'bob');
  assert.equal(decided.channel, 'api');
  assert.equal(decided.diff.length, 1);
  assert.match(decided.diff[0].path, /amount/);
  assert.deepEqual([decided.diff[0].before, decided.diff[0].after], [1500, 900]);

  const late = await decide(trackingId, { type: 'approve' });
  assert.equal(late.status, 409);
  assert.equal(late.body.error.code, 'already_settled');
});

test('Idempotency-Key: a retried request gets the first answer and decides once', async () => {
  const { runId, trackingId } = await waitingTransfer('approvals: idempotent');
  const headers = { 'idempotency-key': 'retry-me-1' };
  const first = await decide(trackingId, { type: 'approve' }, tokens.alice, headers);
  assert.equal(first.status, 200);
  const retry = await decide(trackingId, { type: 'approve' }, tokens.alice, headers);
  assert.equal(retry.status, 200);
  assert.deepEqual(retry.body.outcome, first.body.outcome);
  // Without the key, the same request is a new decision on a settled approval.
  const fresh = await decide(trackingId, { type: 'approve' });
  assert.equal(fresh.status, 409);
  await stack.result(runId);
  assert.equal(toolRuns.filter((r) => r.runId === runId).length, 1);
  const bad = await decide(trackingId, { type: 'approve' }, tokens.alice, {
    'idempotency-key': 'k'.repeat(201),
  });
  assert.equal(bad.status, 400);
});

test('Idempotency-Key: a retry whose first answer was lost gets that answer, not 409, with no worker up', async () => {
  const { runId, trackingId } = await waitingTransfer('approvals: idempotent after the end');
  const headers = { 'idempotency-key': 'answer-lost-1' };
  const first = await decide(trackingId, { type: 'approve' }, tokens.alice, headers);
  assert.equal(first.status, 200);
  assert.equal((await stack.result(runId)).status, 'completed');
  await stack.stopWorker();
  try {
    // The run has ended and no worker can answer a query: the outcome comes from the run's result.
    const retry = await decide(trackingId, { type: 'approve' }, tokens.alice, headers);
    assert.equal(retry.status, 200);
    assert.deepEqual(retry.body.outcome, first.body.outcome);
    const other = await decide(trackingId, { type: 'approve' }, tokens.alice, {
      'idempotency-key': 'answer-lost-2',
    });
    assert.equal(other.status, 409);
    assert.equal(other.body.error.code, 'already_settled');
  } finally {
    await stack.startWorker();
  }
  assert.equal(toolRuns.filter((r) => r.runId === runId).length, 1);
});

test('Idempotency-Key: a retry on a settled approval of a running run is answered by the workflow', async () => {
  const runId = await stack.startRun(
    'bank',
    'approvals: idempotent while running',
    tokens.victor,
    calls(call('transfer', proposal), call('transfer', { ...proposal, amount: 2500 })),
    say('Done.'),
  );
  const [one, two] = await stack.waitForPending(runId, 2);
  const headers = { 'idempotency-key': 'retry-running-1' };
  const first = await decide(one!.trackingId, { type: 'approve' }, tokens.alice, headers);
  assert.equal(first.status, 200);
  // The retry's first read of its outcome fails (a zero wait stands in for a worker killed
  // mid-query); the memo then shows the approval settled. The workflow, not a 409, answers it.
  const retry = await decideDirect(one!.trackingId, 'retry-running-1');
  assert.ok(retry === null || retry.accepted, `retry answered ${JSON.stringify(retry)}`);
  const polled = await stack.http(
    'GET',
    `/api/approvals/${one!.trackingId}/decisions/${first.body.outcome.requestId}`,
    { token: tokens.alice },
  );
  assert.deepEqual(polled.body.outcome, first.body.outcome);
  const fresh = await decide(one!.trackingId, { type: 'approve' }, tokens.alice, {
    'idempotency-key': 'retry-running-2',
  });
  assert.equal(fresh.status, 409);
  assert.equal(fresh.body.error.code, 'already_settled');
  assert.equal((await decide(two!.trackingId, { type: 'reject', message: 'no' })).status, 200);
  await stack.result(runId);
  assert.equal(toolRuns.filter((r) => r.runId === runId).length, 1);
});

test('reject with a reason: the tool never runs and the model is told why', async () => {
  const { runId, trackingId } = await waitingTransfer('approvals: reject');
  const answer = await decide(trackingId, { type: 'reject', message: 'Not this quarter.' });
  assert.equal(answer.status, 200);
  assert.equal(answer.body.outcome.status, 'rejected');
  await stack.result(runId);
  assert.equal(toolRuns.filter((r) => r.runId === runId).length, 0);
  const state = await stack.state(runId);
  const toolMessage = state.transcript.find((m) => m.role === 'tool');
  assert.match(toolMessage && 'content' in toolMessage ? toolMessage.content : '', /Not this quarter\./);
});

test('an approval shown, decided, and its run shown: each request describes the run once, for its access check', async () => {
  const { runId, trackingId } = await waitingTransfer('approvals: one describe');
  const describes = () => stack.apiCalls('DescribeWorkflowExecution');
  const before = describes();
  const shown = await stack.http('GET', `/api/approvals/${trackingId}`, { token: tokens.alice });
  assert.equal(shown.status, 200);
  assert.equal(describes() - before, 1, 'the approval page');
  const answer = await decide(trackingId, { type: 'approve' }, tokens.alice, {
    'if-match': shown.headers.get('etag')!,
  });
  assert.equal(answer.status, 200);
  assert.equal(answer.body.outcome.status, 'approved');
  assert.equal(describes() - before, 2, 'the decision');
  await stack.result(runId);
  const run = await stack.http('GET', `/api/runs/${runId}`, { token: tokens.alice });
  assert.equal(run.status, 200);
  assert.equal(describes() - before, 3, 'the run page');
});

test('respond: the human answer stands in for the tool', async () => {
  const { runId, trackingId } = await waitingTransfer('approvals: respond');
  const answer = await decide(trackingId, {
    type: 'respond',
    result: { transferred: 0, note: 'done by hand' },
  });
  assert.equal(answer.status, 200);
  assert.equal(answer.body.outcome.status, 'responded');
  await stack.result(runId);
  assert.equal(toolRuns.filter((r) => r.runId === runId).length, 0);
});

test('decided and all lists, and the outcome poll route (200 known, 202 not yet)', async () => {
  const { runId, trackingId } = await waitingTransfer('approvals: decided list');
  const headers = { 'idempotency-key': 'poll-me' };
  const done = await decide(trackingId, { type: 'approve' }, tokens.alice, headers);
  assert.equal(done.status, 200);
  await stack.result(runId);

  const decided = await stack.listUntil('/api/approvals?status=decided', tokens.alice, (body) =>
    body.approvals.some((a: { trackingId: string }) => a.trackingId === trackingId),
  );
  const mine = decided.approvals.find((a: { trackingId: string }) => a.trackingId === trackingId);
  assert.equal(mine.status, 'approved');
  assert.ok(decided.approvals.every((a: { status: string }) => a.status !== 'pending'));
  const all = await stack.http('GET', '/api/approvals?status=all&agent=bank', { token: tokens.alice });
  assert.ok(all.body.approvals.some((a: { trackingId: string }) => a.trackingId === trackingId));

  const requestId = done.body.outcome.requestId;
  const polled = await stack.http('GET', `/api/approvals/${trackingId}/decisions/${requestId}`, {
    token: tokens.alice,
  });
  assert.equal(polled.status, 200);
  assert.deepEqual(polled.body.outcome, done.body.outcome);
  const notYet = await stack.http('GET', `/api/approvals/${trackingId}/decisions/never-sent`, {
    token: tokens.alice,
  });
  assert.equal(notYet.status, 202);
  assert.equal(notYet.body.status, 'submitted');
  assert.equal(notYet.headers.get('location'), `/api/approvals/${trackingId}/decisions/never-sent`);
});

test('a decision taken while no worker runs answers 202, is kept, and applies once a worker is back', async () => {
  const { runId, trackingId } = await waitingTransfer('approvals: no worker');
  await stack.stopWorker();
  let restarted = false;
  try {
    // Decided on the proposal read before the worker went (a query needs one).
    const sent = await decide(trackingId, { type: 'approve' }, tokens.alice, {
      'idempotency-key': 'offline-1',
      'if-match': '"1"',
    });
    assert.equal(sent.status, 202);
    const location = sent.headers.get('location');
    assert.ok(location?.startsWith(`/api/approvals/${trackingId}/decisions/`), `location ${location}`);
    await stack.startWorker();
    restarted = true;
    let polled = await stack.http('GET', location!, { token: tokens.alice });
    while (polled.status === 202) {
      await sleep(50);
      polled = await stack.http('GET', location!, { token: tokens.alice });
    }
    assert.equal(polled.status, 200);
    assert.equal(polled.body.outcome.status, 'approved');
    assert.equal((await stack.result(runId)).status, 'completed');
    assert.equal(toolRuns.filter((r) => r.runId === runId).length, 1);
  } finally {
    if (!restarted) await stack.startWorker();
  }
});
