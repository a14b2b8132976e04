import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ParsedMail } from 'mailparser';
import { linkIn, recipient, startMailbox, type Mailbox } from '../email/mailbox.js';
import { call, calls, say } from '../support/fake-model.js';
import { toolRuns, tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';

// A countersignature covers exactly what its signer saw: every decision names the revision of the
// proposal it was made on, and one made on a proposal that has changed since changes nothing.
let stack: Stack;
let mailbox: Mailbox;
before(async () => {
  mailbox = await startMailbox();
  stack = await startStack({ smtpUrl: mailbox.url });
});
after(async () => {
  await stack?.close();
  await mailbox?.close();
});

/** A grant of 250 that needs alice and bob; Victor (a viewer) asks, so both are mailed. */
async function waitingGrant(input: string) {
  const runId = await stack.startRun(
    'treasury',
    input,
    tokens.victor,
    calls(call('grant', { supplier: 'acme', amount: 250 })),
    say('Granted.'),
  );
  const [pending] = await stack.waitForPending(runId);
  return { runId, trackingId: pending!.trackingId };
}

const decide = (trackingId: string, token: string, body: unknown, ifMatch: string) =>
  stack.http('POST', `/api/approvals/${trackingId}/decision`, {
    token,
    body,
    headers: { 'if-match': ifMatch },
  });

test('REST: the ETag is the revision; an approve on the proposal before an edit is refused with 412', async () => {
  const { runId, trackingId } = await waitingGrant('revisions: rest');
  const shown = await stack.http('GET', `/api/approvals/${trackingId}`, { token: tokens.alice });
  assert.equal(shown.headers.get('etag'), '"1"');
  assert.equal(shown.body.revision, 1);
  // The tag names the proposal, not every change to the approval: it never answers a cache with a 304.
  assert.equal(shown.headers.get('cache-control'), 'no-store');
  const conditional = await stack.http('GET', `/api/approvals/${trackingId}`, {
    token: tokens.alice,
    headers: { 'if-none-match': '"1"' },
  });
  assert.equal(conditional.status, 200);

  // Bob raises the amount: his edit is his sign-off on revision 2.
  const edited = await decide(
    trackingId,
    tokens.bob,
    { type: 'edit', args: { supplier: 'acme', amount: 900 } },
    '"1"',
  );
  assert.equal(edited.status, 200, edited.text);
  assert.equal(edited.body.outcome.status, 'pending');
  assert.equal(edited.body.outcome.revision, 2);

  // Alice approves what she was shown, 250: refused, and shown the current proposal.
  const stale = await decide(trackingId, tokens.alice, { type: 'approve' }, '"1"');
  assert.equal(stale.status, 412, stale.text);
  assert.equal(stale.body.error.code, 'stale_revision');
  assert.equal(stale.body.error.current.revision, 2);
  assert.deepEqual(stale.body.error.current.args, { supplier: 'acme', amount: 900 });
  const after412 = await stack.http('GET', `/api/approvals/${trackingId}`, { token: tokens.alice });
  assert.equal(after412.body.status, 'pending');
  assert.deepEqual(
    after412.body.approvals.map((s: { approver: string; revision: number }) => [s.approver, s.revision]),
    [['bob', 2]],
  );
  assert.equal(toolRuns.filter((r) => r.runId === runId).length, 0);

  // On the current revision she countersigns 900, and the grant runs once, with 900.
  const current = await decide(trackingId, tokens.alice, { type: 'approve' }, '"2"');
  assert.equal(current.status, 200, current.text);
  assert.equal(current.body.outcome.status, 'edited');
  await stack.result(runId);
  assert.deepEqual(
    toolRuns.filter((r) => r.runId === runId).map((r) => r.args),
    [{ supplier: 'acme', amount: 900 }],
  );
  const state = await stack.state(runId);
  const approval = state.approvals[0]!;
  assert.deepEqual(
    approval.approvals.map((s) => [s.approver, s.revision]),
    [
      ['bob', 2],
      ['alice', 2],
    ],
  );
  assert.ok(state.events.some((e) => e.type === 'decision.refused' && e.code === 'stale_revision'));
});

test('REST: a decision without If-Match, or with one naming no revision, is 428 and changes nothing', async () => {
  const { trackingId } = await waitingGrant('revisions: 428');
  for (const ifMatch of ['', '*', 'W/"1"', '"1", "2"']) {
    const answer = await decide(trackingId, tokens.alice, { type: 'approve' }, ifMatch);
    assert.equal(answer.status, 428, `If-Match ${JSON.stringify(ifMatch)}: ${answer.text}`);
    assert.equal(answer.body.error.code, 'revision_required');
  }
  // A bare number names a revision but not as an ETag: the answer says how to quote it.
  const bare = await decide(trackingId, tokens.alice, { type: 'approve' }, '1');
  assert.equal(bare.status, 400, bare.text);
  assert.match(bare.body.error.message, /If-Match: "1"/);
  // An edit that sends only the changed field is told, in one error, to send the whole arguments.
  const partial = await decide(trackingId, tokens.alice, { type: 'edit', args: { amount: 200 } }, '"1"');
  assert.equal(partial.status, 400, partial.text);
  assert.deepEqual(
    partial.body.error.fields.map((f: { path: string }) => f.path),
    ['/args'],
  );
  assert.match(partial.body.error.fields[0].message, /sends the whole arguments.*missing: supplier/);
  const shown = await stack.http('GET', `/api/approvals/${trackingId}`, { token: tokens.alice });
  assert.deepEqual(shown.body.approvals, []);
  const doc = await stack.http('GET', '/api/openapi.json');
  const responses = doc.body.paths['/api/approvals/{trackingId}/decision'].post.responses;
  for (const code of ['412', '422', '428']) assert.ok(responses[code], `the OpenAPI document lists ${code}`);
});

test('email: a link for the proposal before an edit shows what changed and decides nothing; new links follow', async () => {
  const { runId, trackingId } = await waitingGrant('revisions: email');
  const forAlice = (revisionMarker: (m: ParsedMail) => boolean) => (m: ParsedMail) =>
    recipient(m) === 'alice@example.com' && (m.text ?? '').includes(trackingId) && revisionMarker(m);
  const first = await mailbox.waitFor(forAlice((m) => (m.text ?? '').includes('"amount": 250')));
  const oldLink = linkIn(first, 'Approve');

  const edited = await decide(
    trackingId,
    tokens.bob,
    { type: 'edit', args: { supplier: 'acme', amount: 900 } },
    '"1"',
  );
  assert.equal(edited.status, 200, edited.text);

  const page = await fetch(oldLink);
  assert.equal(page.status, 409);
  const html = await page.text();
  assert.match(html, /This proposal has changed/);
  assert.match(html, /\/amount: 250 → 900/);
  assert.doesNotMatch(html, /<button/, 'no button acts on the old proposal');
  const posted = await fetch(oldLink, { method: 'POST', body: new URLSearchParams({}), redirect: 'manual' });
  assert.equal(posted.status, 412);
  const shown = await stack.http('GET', `/api/approvals/${trackingId}`, { token: tokens.alice });
  assert.deepEqual(
    shown.body.approvals.map((s: { approver: string }) => s.approver),
    ['bob'],
  );

  // Alice, still needed, gets a new email with links for revision 2; its approve countersigns 900.
  const second = await mailbox.waitFor(forAlice((m) => (m.text ?? '').includes('"amount": 900')));
  const approved = await fetch(linkIn(second, 'Approve'), {
    method: 'POST',
    body: new URLSearchParams({}),
    redirect: 'manual',
  });
  assert.equal(approved.status, 200, await approved.text());
  await stack.result(runId);
  assert.deepEqual(
    toolRuns.filter((r) => r.runId === runId).map((r) => r.args.amount),
    [900],
  );
});

test('an Idempotency-Key answers its own request again, and refuses another request with 422', async () => {
  // Two approvals of one run: the run remembers every key taken on it (there is no side table).
  const runId = await stack.startRun(
    'treasury',
    'revisions: keys',
    tokens.victor,
    calls(call('grant', { supplier: 'acme', amount: 250 }), call('grant', { supplier: 'zeta', amount: 300 })),
    say('Granted.'),
  );
  const [a, b] = await stack.waitForPending(runId, 2);
  const key = { 'idempotency-key': 'one-key', 'if-match': '"1"' };
  const first = await stack.http('POST', `/api/approvals/${a!.trackingId}/decision`, {
    token: tokens.alice,
    body: { type: 'approve' },
    headers: key,
  });
  assert.equal(first.status, 200, first.text);
  const again = await stack.http('POST', `/api/approvals/${a!.trackingId}/decision`, {
    token: tokens.alice,
    body: { type: 'approve' },
    headers: key,
  });
  assert.equal(again.status, 200);
  assert.equal(again.body.outcome.requestId, first.body.outcome.requestId);

  const otherBody = await stack.http('POST', `/api/approvals/${a!.trackingId}/decision`, {
    token: tokens.alice,
    body: { type: 'reject', message: 'changed my mind' },
    headers: key,
  });
  assert.equal(otherBody.status, 422, otherBody.text);
  assert.equal(otherBody.body.error.code, 'idempotency_key_reused');
  const otherApproval = await stack.http('POST', `/api/approvals/${b!.trackingId}/decision`, {
    token: tokens.alice,
    body: { type: 'reject', message: 'no' },
    headers: key,
  });
  assert.equal(otherApproval.status, 422, otherApproval.text);
  const untouched = await stack.http('GET', `/api/approvals/${b!.trackingId}`, { token: tokens.alice });
  assert.equal(untouched.body.status, 'pending');
  assert.deepEqual(untouched.body.approvals, []);
});

test("an Idempotency-Key is remembered by its run: on another run's approval it is a new request, applied there", async () => {
  const start = (input: string) =>
    stack.startRun(
      'treasury',
      input,
      tokens.victor,
      calls(call('grant', { supplier: 'acme', amount: 250 })),
      say('Granted.'),
    );
  const [runA, runB] = [await start('revisions: key on run a'), await start('revisions: key on run b')];
  const [a] = await stack.waitForPending(runA);
  const [b] = await stack.waitForPending(runB);
  const key = { 'idempotency-key': 'key-for-two-runs', 'if-match': '"1"' };
  const approved = await stack.http('POST', `/api/approvals/${a!.trackingId}/decision`, {
    token: tokens.alice,
    body: { type: 'approve' },
    headers: key,
  });
  assert.equal(approved.status, 200, approved.text);
  const rejected = await stack.http('POST', `/api/approvals/${b!.trackingId}/decision`, {
    token: tokens.alice,
    body: { type: 'reject', message: 'not this one' },
    headers: key,
  });
  // Never the first run's outcome, and never silently dropped.
  assert.equal(rejected.status, 200, rejected.text);
  assert.equal(rejected.body.outcome.trackingId, b!.trackingId);
  assert.equal(rejected.body.outcome.status, 'rejected');
  // Each run took its own request: alice's sign-off on the first, her rejection on the second.
  const signedA = await stack.http('GET', `/api/approvals/${a!.trackingId}`, { token: tokens.alice });
  assert.deepEqual(
    signedA.body.approvals.map((s: { approver: string }) => s.approver),
    ['alice'],
  );
  const settledB = await stack.http('GET', `/api/approvals/${b!.trackingId}`, { token: tokens.alice });
  assert.equal(settledB.body.status, 'rejected');
});
