// Slack's Edit button (issue 43): a modal of the call's editable arguments, prefilled; its values
// checked as every channel's edit is before Slack is answered, an invalid one shown in the modal;
// a valid one decided through the rules every channel goes through, its refusals said to the
// clicker alone, and an edit into a stricter tier left waiting for it, as in every channel.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { RunEvent } from '../../protocol/index.js';
import { apiTestAgents, tokens, toolRuns } from '../support/api-agents.js';
import { tieredPayments } from '../support/tiered-payments.js';
import type { SlackCall } from './fake-slack.js';
import { startSlackStack, type SlackStack } from './slack-stack.js';

let s: SlackStack;
before(async () => {
  s = await startSlackStack({ agents: [...apiTestAgents, tieredPayments('Pay {{amount}} to {{supplier}}')] });
});
after(() => s?.close());

type Element = { type: string; action_id?: string; value?: string; initial_value?: string };
type Block = { type: string; block_id?: string; elements?: Element[]; element?: Element };
type Modal = { callback_id: string; private_metadata: string; blocks: Block[] };

const modals = () => s.slack.calls.filter((c) => c.method === 'views.open');
const buttonsOf = (card: SlackCall) =>
  (card.args.blocks as Block[]).filter((b) => b.type === 'actions').flatMap((b) => b.elements ?? []);

/** The member clicks Edit on the card; the modal the API had Slack open for that click. */
async function openEdit(user: string, card: SlackCall, message: string): Promise<SlackCall> {
  const opened = modals().length;
  assert.equal((await s.click(user, card, 'countersign_edit', message)).status, 200);
  return (await s.slack.waitForCalls((c) => c.method === 'views.open', opened + 1)).at(-1)!;
}

/** The approval's audit trail: its decisions, taken or refused. */
async function decisionsOf(trackingId: string): Promise<RunEvent[]> {
  const detail = await s.stack.http<{ decisions: RunEvent[] }>('GET', `/api/approvals/${trackingId}`, {
    token: tokens.alice,
  });
  assert.equal(detail.status, 200, detail.text);
  return detail.body.decisions.filter((d) => d.type === 'approval.decided' || d.type === 'decision.refused');
}

test('Edit, where the policy allows it, opens a modal of the editable arguments, prefilled and bound to the revision', async () => {
  const { runId, trackingId, card } = await s.gated('bank', 'slack edit: open', 'transfer', {
    from: 'ops',
    to: 'acme',
    amount: 1500,
    memo: 'rent',
  });
  const edit = buttonsOf(card).find((b) => b.action_id === 'countersign_edit');
  assert.equal(edit?.value, JSON.stringify({ trackingId, revision: 1 }));
  const opened = await openEdit('U0ALICE', card, 'edit-open');
  assert.match(String(opened.args.trigger_id), /^trigger-edit-open-/);
  const view = opened.args.view as Modal;
  assert.equal(view.callback_id, 'countersign_edit');
  assert.ok(view.private_metadata.length < 3000);
  assert.deepEqual(JSON.parse(view.private_metadata), {
    trackingId,
    revision: 1,
    responseUrl: s.slack.responseUrl('edit-open'),
  });
  // amount and memo are editable; from and to are locked by the policy, so they have no input.
  const inputs = view.blocks.filter((b) => b.type === 'input' && b.block_id !== 'note');
  assert.deepEqual(
    inputs.map((b) => [b.block_id, b.element?.type, b.element?.initial_value]),
    [
      ['arg:amount', 'number_input', '1500'],
      ['arg:memo', 'plain_text_input', 'rent'],
    ],
  );
  await s.unchanged(runId, trackingId, 1, []);

  // A call whose policy allows no edit has no Edit button.
  const deploy = await s.gated('ops', 'slack edit: none', 'deploy', { service: 'web', version: '2.0.0' });
  assert.deepEqual(
    buttonsOf(deploy.card).map((b) => b.action_id),
    ['countersign_approve', 'countersign_reject', 'countersign_inbox'],
  );
});

test('an invalid value is shown in the modal, under its field, and nothing is decided', async () => {
  const { runId, trackingId, card } = await s.gated('bank', 'slack edit: invalid', 'transfer', {
    from: 'ops',
    to: 'initech',
    amount: 1500,
  });
  await openEdit('U0ALICE', card, 'edit-invalid');
  const answer = await s.submitModal('U0ALICE', {
    'arg:amount': { number: { type: 'number_input', value: '2000000' } },
    'arg:memo': { text: { type: 'plain_text_input', value: 'm'.repeat(200) } },
  });
  assert.equal(answer.status, 200);
  const body = JSON.parse(answer.text) as { response_action: string; errors: Record<string, string> };
  assert.equal(body.response_action, 'errors');
  assert.deepEqual(Object.keys(body.errors).sort(), ['arg:amount', 'arg:memo']);
  assert.match(body.errors['arg:amount']!, /1000000/);
  assert.match(body.errors['arg:memo']!, /140/);
  await s.unchanged(runId, trackingId, 1, []);
  assert.deepEqual(await decisionsOf(trackingId), []);
  // The modal stays open for a correction: nothing is said to the clicker.
  assert.deepEqual(
    s.slack.responses.filter((r) => r.message === 'edit-invalid'),
    [],
  );
});

test('a valid edit decides as the clicker, through Slack: the tool runs with the edited arguments', async () => {
  const { runId, trackingId, card } = await s.gated('bank', 'slack edit: valid', 'transfer', {
    from: 'ops',
    to: 'globex',
    amount: 1500,
    memo: 'rent',
  });
  await openEdit('U0ALICE', card, 'edit-valid');
  const answer = await s.submitModal('U0ALICE', {
    'arg:amount': { number: { type: 'number_input', value: '1200' } },
    'arg:memo': { text: { type: 'plain_text_input', value: 'half now' } },
    note: { message: { type: 'plain_text_input', value: 'Half now, half next month.' } },
  });
  assert.deepEqual(answer, { status: 200, text: '' });
  assert.equal((await s.stack.result(runId)).status, 'completed');
  assert.deepEqual(
    toolRuns.filter((r) => r.runId === runId).map((r) => r.args),
    [{ from: 'ops', to: 'globex', amount: 1200, memo: 'half now' }],
  );
  const approval = (await s.stack.state(runId)).approvals.find((a) => a.trackingId === trackingId)!;
  assert.equal(approval.status, 'edited');
  assert.deepEqual(
    approval.approvals.map((a) => [a.approver, a.channel, a.revision]),
    [['alice', 'slack', 2]],
  );
  const [decided] = await decisionsOf(trackingId);
  assert.equal(decided?.type, 'approval.decided');
  assert.deepEqual(
    [decided?.actor, decided?.channel, decided?.decision, decided?.message],
    ['alice', 'slack', 'edit', 'Half now, half next month.'],
  );
  assert.ok(decided?.diff?.some((c) => c.before === 1500 && c.after === 1200));
  // The clicked message now says how it ended, and what changed.
  const [replaced] = await s.slack.waitForResponses('edit-valid');
  assert.equal(replaced!.body.replace_original, true);
  assert.match(JSON.stringify(replaced!.body.blocks), /\*Approved with edits\* by alice \(slack\)/);
  assert.match(JSON.stringify(replaced!.body.blocks), /1500 → 1200/);
});

test('Edit from a Slack user without the role is refused, and told why; nothing opens or changes', async () => {
  const { runId, trackingId, card } = await s.gated('bank', 'slack edit: no role', 'transfer', {
    from: 'ops',
    to: 'umbrella',
    amount: 1500,
  });
  const opened = modals().length;
  assert.equal((await s.click('U0VICTOR', card, 'countersign_edit', 'edit-no-role')).status, 200);
  assert.match(await s.toldOnly('edit-no-role'), /Not decided: .*needs one of the roles: admin, treasurer/);
  assert.equal(modals().length, opened);
  await s.unchanged(runId, trackingId, 1, []);
  assert.deepEqual(await decisionsOf(trackingId), []);
});

test("an edit sent after another approver's edit changed the proposal is refused as stale, and told why", async () => {
  const { runId, trackingId, card } = await s.gated('treasury', 'slack edit: stale', 'grant', {
    supplier: 'acme',
    amount: 5000,
  });
  await openEdit('U0ALICE', card, 'edit-stale');
  // Bob edits in the inbox while alice's modal is open: revision 2, his sign-off on it.
  const edited = await s.stack.http('POST', `/api/approvals/${trackingId}/decision`, {
    token: tokens.bob,
    body: { type: 'edit', args: { supplier: 'acme', amount: 2500 } },
    headers: { 'x-countersign-channel': 'inbox' },
  });
  assert.equal(edited.status, 200, edited.text);
  const answer = await s.submitModal('U0ALICE', {
    'arg:amount': { number: { type: 'number_input', value: '4000' } },
  });
  assert.deepEqual(answer, { status: 200, text: '' });
  assert.match(
    await s.toldOnly('edit-stale'),
    /Not decided: the proposal changed since you saw it \(you saw revision 1; it is now revision 2\)/,
  );
  await s.unchanged(runId, trackingId, 2, ['bob']);
});

test('an edit into a stricter tier waits for it, on a new revision, and the clicker is told what it needs now', async () => {
  const { runId, trackingId, card } = await s.gated('payments', 'slack edit: tier', 'pay', {
    supplier: 'acme',
    amount: 2500,
  });
  await openEdit('U0ALICE', card, 'edit-tier');
  const answer = await s.submitModal('U0ALICE', {
    'arg:amount': { number: { type: 'number_input', value: '150000' } },
  });
  assert.deepEqual(answer, { status: 200, text: '' });
  const [replaced, told] = await s.slack.waitForResponses('edit-tier', 2);
  // The message is the new revision's card, its buttons bound to it.
  assert.equal(replaced!.body.replace_original, true);
  const blocks = JSON.stringify(replaced!.body.blocks);
  assert.ok(blocks.includes(JSON.stringify(JSON.stringify({ trackingId, revision: 2 }))), blocks);
  assert.match(blocks, /treasurer: 0 of 2 \(large payment: /);
  assert.equal(told!.body.response_type, 'ephemeral');
  const text = String(told!.body.text);
  assert.match(text, /Edited: the call is now revision 2/);
  assert.match(text, /admin: 1 of 1 \(met\)/);
  assert.match(text, /treasurer: 0 of 2 \(large payment: /);
  assert.doesNotMatch(text, /Your approval counts/);
  await s.unchanged(runId, trackingId, 2, ['alice']);
  const approval = (await s.stack.state(runId)).approvals.find((a) => a.trackingId === trackingId)!;
  assert.deepEqual(approval.args, { supplier: 'acme', amount: 150000 });
});
