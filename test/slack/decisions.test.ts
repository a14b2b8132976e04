// Slack's buttons (issue 43): Approve and Reject decide through the rules every channel goes
// through, bound to the revision the card showed; whatever is refused is told to the clicker alone
// and changes nothing; a request Slack did not sign in the last five minutes is not read at all.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { toolRuns, tokens } from '../support/api-agents.js';
import { waitFor } from '../support/wait-for.js';
import { CHANNEL, startSlackStack, type SlackStack } from './slack-stack.js';

let s: SlackStack;
before(async () => {
  s = await startSlackStack();
});
after(() => s?.close());

/** The approval's audit trail records no decision taken. */
async function undecided(trackingId: string): Promise<void> {
  const detail = await s.stack.http<{ decisions: { type: string }[] }>(
    'GET',
    `/api/approvals/${trackingId}`,
    {
      token: tokens.alice,
    },
  );
  assert.equal(detail.status, 200, detail.text);
  assert.deepEqual(
    detail.body.decisions.filter((d) => d.type === 'approval.decided'),
    [],
  );
}

test('Approve from a mapped Slack user with the role decides, the tool runs once, and the card says so', async () => {
  const { runId, trackingId, card } = await s.gated('bank', 'slack approve', 'transfer', {
    from: 'ops',
    to: 'acme',
    amount: 1500,
  });
  assert.equal((await s.click('U0ALICE', card, 'countersign_approve', 'approve-1')).status, 200);
  // The clicked message now says how it ended, by whom, through which channel; no buttons are left.
  const [replaced] = await s.slack.waitForResponses('approve-1');
  const result = await s.stack.result(runId);
  assert.equal(result.status, 'completed');
  assert.equal(toolRuns.filter((r) => r.runId === runId).length, 1);
  const approval = (await s.stack.state(runId)).approvals.find((a) => a.trackingId === trackingId)!;
  assert.equal(approval.status, 'approved');
  assert.deepEqual(
    approval.approvals.map((a) => [a.approver, a.channel, a.revision]),
    [['alice', 'slack', 1]],
  );
  assert.equal(replaced!.body.replace_original, true);
  const blocks = JSON.stringify(replaced!.body.blocks);
  assert.match(blocks, /\*Approved\* by alice \(slack\)/);
  assert.ok(!blocks.includes('countersign_approve'));

  // The same click delivered again decides nothing more: the tool ran once.
  await s.click('U0ALICE', card, 'countersign_approve', 'approve-1-again');
  assert.match(await s.toldOnly('approve-1-again'), /Not decided: .*already approved/);
  assert.equal(toolRuns.filter((r) => r.runId === runId).length, 1);
});

test('Reject opens a modal for the reason; its submission rejects, and the agent is told why', async () => {
  const { runId, trackingId, card } = await s.gated('ops', 'slack reject', 'deploy', {
    service: 'web',
    version: '2.0.0',
  });
  const modals = s.slack.calls.filter((c) => c.method === 'views.open').length;
  assert.equal((await s.click('U0ALICE', card, 'countersign_reject', 'reject-1')).status, 200);
  await s.slack.waitForCalls((c) => c.method === 'views.open', modals + 1);
  await s.unchanged(runId, trackingId, 1, []);
  assert.equal((await s.submitReject('U0ALICE', 'Not during the freeze.')).status, 200);
  const [replaced] = await s.slack.waitForResponses('reject-1');
  await s.stack.result(runId);
  const approval = (await s.stack.state(runId)).approvals.find((a) => a.trackingId === trackingId)!;
  assert.equal(approval.status, 'rejected');
  assert.equal(approval.outcome?.message, 'Not during the freeze.');
  assert.match(JSON.stringify(replaced!.body.blocks), /\*Rejected\* by alice \(slack\)/);
  assert.equal(toolRuns.filter((r) => r.runId === runId).length, 0);
});

test('a Slack user without the role, and one who is no approver, are refused and told why; nothing changes', async () => {
  const { runId, trackingId, card } = await s.gated('bank', 'slack refusals', 'transfer', {
    from: 'ops',
    to: 'initech',
    amount: 900,
  });
  await s.click('U0VICTOR', card, 'countersign_approve', 'no-role');
  assert.match(await s.toldOnly('no-role'), /Not decided: .*needs one of the roles admin, treasurer/);
  await s.click('U0STRANGER', card, 'countersign_approve', 'unmapped');
  assert.match(await s.toldOnly('unmapped'), /not one of this service's approvers/);
  // Nobody unmapped is shown the modal either.
  const modals = s.slack.calls.filter((c) => c.method === 'views.open').length;
  await s.click('U0STRANGER', card, 'countersign_reject', 'unmapped-reject');
  assert.match(await s.toldOnly('unmapped-reject'), /not one of this service's approvers/);
  assert.equal(s.slack.calls.filter((c) => c.method === 'views.open').length, modals);
  await s.unchanged(runId, trackingId, 1, []);
  await undecided(trackingId);
});

test('a forged signature and a request older than five minutes are refused before anything is read', async () => {
  const { runId, trackingId, card } = await s.gated('bank', 'slack forged', 'transfer', {
    from: 'ops',
    to: 'umbrella',
    amount: 800,
  });
  const calls = s.slack.calls.length;
  const forged = await s.click('U0ALICE', card, 'countersign_approve', 'forged', {
    secret: 'not-the-secret-at-all',
  });
  assert.equal(forged.status, 401);
  assert.equal(JSON.parse(forged.text).error.code, 'slack_signature_invalid');
  const replayed = await s.click('U0ALICE', card, 'countersign_approve', 'replayed', {
    timestamp: Math.floor(Date.now() / 1000) - 301,
  });
  assert.equal(replayed.status, 401);
  assert.equal(JSON.parse(replayed.text).error.code, 'slack_signature_invalid');
  // A click Slack did sign, after them, is answered; they never were.
  await s.click('U0VICTOR', card, 'countersign_approve', 'after-forged');
  await s.slack.waitForResponses('after-forged');
  assert.deepEqual(
    s.slack.responses.filter((r) => r.message === 'forged' || r.message === 'replayed'),
    [],
  );
  // Only the signed click's own lookups reached Slack (the DM cards may still be on their way).
  const after = s.slack.calls.slice(calls);
  assert.ok(after.filter((c) => c.method === 'users.info').every((c) => c.args.user === 'U0VICTOR'));
  assert.deepEqual(
    after.filter((c) => c.method === 'views.open' || c.method === 'chat.update'),
    [],
  );
  await s.unchanged(runId, trackingId, 1, []);
});

test("a click on a card whose proposal another approver's edit changed is refused as stale; nothing changes", async () => {
  const { runId, trackingId, card } = await s.gated('treasury', 'slack stale', 'grant', {
    supplier: 'acme',
    amount: 5000,
  });
  // Bob edits in the inbox: revision 2, his sign-off on it, one more needed.
  const edited = await s.stack.http('POST', `/api/approvals/${trackingId}/decision`, {
    token: tokens.bob,
    body: { type: 'edit', args: { supplier: 'acme', amount: 2500 } },
    headers: { 'x-countersign-channel': 'inbox' },
  });
  assert.equal(edited.status, 200, edited.text);
  await s.click('U0ALICE', card, 'countersign_approve', 'stale');
  assert.match(
    await s.toldOnly('stale'),
    /Not decided: the proposal changed since you saw it \(you saw revision 1; it is now revision 2\)/,
  );
  await s.unchanged(runId, trackingId, 2, ['bob']);
  // The new revision was posted with buttons bound to it.
  const fresh = await waitFor(
    async () =>
      s.cards(trackingId, CHANNEL).find((c) => JSON.stringify(c.args.blocks).includes('\\"revision\\":2')),
    'the card of revision 2',
  );
  assert.ok(fresh);
});

test('a quorum counts one Slack and one inbox sign-off', async () => {
  const { runId, trackingId, card } = await s.gated('treasury', 'slack quorum', 'payout', {
    supplier: 'acme',
    amount: 300,
  });
  // Bob is matched by the email Slack has for him (users.info), as he has no Slack id on file.
  await s.click('U0BOB', card, 'countersign_approve', 'quorum-bob');
  const answers = await s.slack.waitForResponses('quorum-bob', 2);
  assert.ok(answers.some((a) => /Your approval counts: 1 of 2/.test(String(a.body.text))));
  await s.unchanged(runId, trackingId, 1, ['bob']);
  const approved = await s.stack.http('POST', `/api/approvals/${trackingId}/decision`, {
    token: tokens.alice,
    body: { type: 'approve' },
    headers: { 'x-countersign-channel': 'inbox' },
  });
  assert.equal(approved.status, 200, approved.text);
  await s.stack.result(runId);
  const approval = (await s.stack.state(runId)).approvals.find((a) => a.trackingId === trackingId)!;
  assert.equal(approval.status, 'approved');
  assert.deepEqual(
    approval.approvals.map((a) => [a.approver, a.channel]),
    [
      ['bob', 'slack'],
      ['alice', 'inbox'],
    ],
  );
  assert.equal(toolRuns.filter((r) => r.runId === runId).length, 1);
});
