import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ParsedMail } from 'mailparser';
import { signLink } from '../../notify/links.js';
import { signingKeyId } from '../../notify/signing-key-id.js';
import { rewriteLinkPayload } from '../support/link-tokens.js';
import { call, calls, say } from '../support/fake-model.js';
import { toolRuns, tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';
import { linkIn, recipient, startMailbox, type Mailbox } from './mailbox.js';

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

/** Victor (a viewer) asks, so both deciders (alice, admin; bob, treasurer) are mailed. */
async function mailedTransfer(
  input: string,
  args: Record<string, unknown> = { from: 'ops', to: 'acme', amount: 1500 },
) {
  const runId = await stack.startRun(
    'bank',
    input,
    tokens.victor,
    calls(call('transfer', args)),
    say('Done.'),
  );
  const [pending] = await stack.waitForPending(runId);
  const trackingId = pending!.trackingId;
  const forTracking = (to: string) => (m: ParsedMail) =>
    recipient(m) === to && (m.text ?? '').includes(trackingId);
  const alice = await mailbox.waitFor(forTracking('alice@example.com'));
  const bob = await mailbox.waitFor(forTracking('bob@example.com'));
  return { runId, trackingId, alice, bob };
}

const approvalStatus = async (trackingId: string) =>
  (await stack.http('GET', `/api/approvals/${trackingId}`, { token: tokens.alice })).body.status as string;

const post = (link: string, form: Record<string, string> = {}) =>
  fetch(link, { method: 'POST', body: new URLSearchParams(form), redirect: 'manual' });

test('an approval mails each approver who may decide, with the call, its context and signed links', async () => {
  const { trackingId, alice, bob } = await mailedTransfer('email: content', {
    from: 'ops',
    to: 'acme',
    amount: 1500,
    memo: '<script>alert(1)</script>',
  });
  assert.match(alice.subject ?? '', /transfer/);
  assert.match(alice.text ?? '', /"amount": 1500/);
  assert.match(alice.text ?? '', /Requested by: victor/);
  assert.match(alice.text ?? '', /Needs: admin or treasurer: 0 of 1 \(transfer: its policy\)/);
  assert.ok(alice.html && alice.html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  assert.ok(alice.html && !alice.html.includes('<script>'));
  assert.notEqual(linkIn(alice, 'Approve'), linkIn(bob, 'Approve'));
  assert.equal(
    linkIn(alice, 'Open in the inbox'),
    `${stack.url}/#/approvals/${encodeURIComponent(trackingId)}`,
  );
  // Victor may not decide, and has no email: nobody else is mailed.
  assert.ok(mailbox.messages.every((m) => ['alice@example.com', 'bob@example.com'].includes(recipient(m))));
});

test('opening a link changes nothing; confirming it decides and the run continues', async () => {
  const { runId, trackingId, alice } = await mailedTransfer('email: approve');
  const link = linkIn(alice, 'Approve');
  const page = await fetch(link);
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /<form method="post">/);
  assert.match(html, /Nothing has happened yet/);
  assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
  assert.equal(await approvalStatus(trackingId), 'pending');

  const confirmed = await post(link);
  assert.equal(confirmed.status, 200);
  assert.match(await confirmed.text(), /Approved/);
  const output = await stack.result(runId);
  assert.equal(output.status, 'completed');
  assert.equal(toolRuns.filter((r) => r.runId === runId).length, 1);
  const shown = await stack.http('GET', `/api/approvals/${trackingId}`, { token: tokens.alice });
  const decided = shown.body.decisions.find((e: { type: string }) => e.type === 'approval.decided');
  assert.deepEqual([decided.actor, decided.channel], ['alice', 'email']);

  const reused = await post(link);
  assert.equal(reused.status, 409);
  assert.equal((await fetch(link)).status, 409);
});

test('a reject link asks for a reason, which the model is told', async () => {
  const { runId, trackingId, bob } = await mailedTransfer('email: reject');
  const link = linkIn(bob, 'Reject');
  const page = await (await fetch(link)).text();
  assert.match(page, /<textarea id="message" name="message"/);
  const rejected = await post(link, { message: 'Wrong supplier.' });
  assert.equal(rejected.status, 200);
  assert.match(await rejected.text(), /Rejected/);
  await stack.result(runId);
  assert.equal(await approvalStatus(trackingId), 'rejected');
  const state = await stack.state(runId);
  assert.ok(state.transcript.some((m) => m.role === 'tool' && m.content.includes('Wrong supplier.')));
});

test('forged, tampered and expired links get a clear page and change nothing', async () => {
  const { trackingId, alice } = await mailedTransfer('email: forged');
  const approve = linkIn(alice, 'Approve');
  const reject = linkIn(alice, 'Reject');
  const [base, token] = [
    approve.slice(0, approve.lastIndexOf('/') + 1),
    approve.slice(approve.lastIndexOf('/') + 1),
  ];
  const [payload, signature] = token.split('.');
  const rejectPayload = reject.slice(reject.lastIndexOf('/') + 1).split('.')[0];

  const forged = `${base}${payload}.${Buffer.from('not the signature at all, really').toString('base64url')}`;
  const tampered = `${base}${rejectPayload}.${signature}`;
  // Claims this API's own signing key id, with a signature that does not verify: forged, plainly.
  const ownKeyId = `${base}${rewriteLinkPayload(signLink('some-other-secret-0123456789abcdef-xyz', { trackingId, approverId: 'alice', action: 'approve', expiresAt: Date.now() + 60_000 }), (p) => (p.k = signingKeyId(stack.signingSecret)))}`;
  for (const link of [forged, tampered, ownKeyId, `${base}garbage`]) {
    const shown = await fetch(link);
    assert.equal(shown.status, 400, link);
    assert.match(await shown.text(), /This link is not valid/);
    const posted = await post(link);
    assert.equal(posted.status, 400, link);
  }
  const expired = `${base}${signLink(stack.signingSecret, { trackingId, approverId: 'alice', action: 'approve', expiresAt: Date.now() - 1 })}`;
  const shown = await fetch(expired);
  assert.equal(shown.status, 410);
  assert.match(await shown.text(), /This link has expired/);
  assert.equal((await post(expired)).status, 410);
  assert.equal(await approvalStatus(trackingId), 'pending');
});

test('a link signed by an instance with another signing secret says so, tells the operator, and changes nothing', async (t) => {
  const { runId, trackingId } = await mailedTransfer('email: other secret');
  const otherSecret = 'some-other-secret-0123456789abcdef-xyz';
  const link = `${stack.url}/links/${signLink(otherSecret, { trackingId, approverId: 'alice', action: 'approve', expiresAt: Date.now() + 60_000, revision: 1 })}`;
  const warned = t.mock.method(console, 'warn', () => undefined);
  for (const answer of [await fetch(link), await post(link)]) {
    assert.equal(answer.status, 400);
    const page = await answer.text();
    assert.match(page, /signed by a Countersign instance with another signing secret/);
    assert.match(page, /ask whoever runs Countersign/i);
    assert.match(page, /signing_secret_mismatch/);
    assert.doesNotMatch(page, /This link is not valid/);
  }
  // The second refusal within the minute is counted, not logged again.
  assert.equal(warned.mock.callCount(), 1);
  for (const call of warned.mock.calls) {
    const line = String(call.arguments[0]);
    assert.match(line, /COUNTERSIGN_SIGNING_SECRET/);
    assert.match(line, /signingSecret/);
    assert.ok(
      line.includes(signingKeyId(otherSecret)) && line.includes(signingKeyId(stack.signingSecret)),
      line,
    );
    assert.ok(!line.includes(otherSecret) && !line.includes(stack.signingSecret), 'no secret in the log');
  }
  assert.equal(await approvalStatus(trackingId), 'pending');
  assert.equal((await stack.state(runId)).status, 'waiting');
  assert.equal(toolRuns.filter((r) => r.runId === runId).length, 0);
});

test('a link works once, even while the approval still waits for a quorum', async () => {
  const runId = await stack.startRun(
    'treasury',
    'email: quorum',
    tokens.victor,
    calls(call('payout', { supplier: 'acme', amount: 80 })),
    say('Paid.'),
  );
  const [pending] = await stack.waitForPending(runId);
  const trackingId = pending!.trackingId;
  const alice = await mailbox.waitFor(
    (m) => recipient(m) === 'alice@example.com' && (m.text ?? '').includes(trackingId),
  );
  const bob = await mailbox.waitFor(
    (m) => recipient(m) === 'bob@example.com' && (m.text ?? '').includes(trackingId),
  );

  const first = await post(linkIn(alice, 'Approve'));
  assert.equal(first.status, 200);
  assert.match(await first.text(), /1 of 2 approvals/);
  assert.equal(await approvalStatus(trackingId), 'pending');

  const again = await post(linkIn(alice, 'Approve'));
  assert.equal(again.status, 409);
  assert.match(await again.text(), /already/i);
  const reopened = await fetch(linkIn(alice, 'Approve'));
  assert.equal(reopened.status, 409);
  assert.match(await reopened.text(), /You have already approved this/);

  const second = await post(linkIn(bob, 'Approve'));
  assert.equal(second.status, 200);
  await stack.result(runId);
  assert.equal(await approvalStatus(trackingId), 'approved');
  assert.equal(toolRuns.filter((r) => r.runId === runId).length, 1);
});
