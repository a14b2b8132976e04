import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PENDING_MEMO_KEY, type ApprovalView } from '../../protocol/index.js';
import { call, calls, say } from '../support/fake-model.js';
import { bankAgent, executionsOf } from './fixtures/agents.js';
import { startHarness, toolMessages, uniqueInput, waitFor, type Harness } from './fixtures/harness.js';

const treasurer1 = { id: 'tina', roles: ['treasurer'] };
const treasurer2 = { id: 'tom', roles: ['treasurer'] };

function byCall(pending: ApprovalView[], toolCallId: string): ApprovalView {
  const view = pending.find((p) => p.toolCallId === toolCallId);
  assert.ok(view, `an approval for ${toolCallId}`);
  return view;
}

describe('approval gate', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  it('waits on several calls of one turn, resolved out of order, each run as soon as approved', async () => {
    const input = uniqueInput('three transfers');
    const conversation = h.fake.script(
      input,
      calls(
        call('transfer', { from: 'A', to: 'B', amount: 1500 }, 'c1'),
        call('transfer', { from: 'A', to: 'C', amount: 2500 }, 'c2'),
        call('transfer', { from: 'A', to: 'D', amount: 3500 }, 'c3'),
        call('lookup_balance', { account: 'A' }, 'c4'),
        call('transfer', { from: 'A', to: 'E', amount: 10 }, 'c5'),
      ),
      say('done'),
    );
    const runId = await h.start(bankAgent, input, 'requester-bob');
    const pending = await h.waitForPending(runId, 3);
    assert.equal(byCall(pending, 'c3').description, 'Transfer 3500 from A to D');
    assert.deepEqual(byCall(pending, 'c3').approvers, ['admin', 'treasurer']);

    // The inbox finds the run with one list call, and its memo summarizes the pending approvals.
    await waitFor(async () => {
      for await (const run of h.client.workflow.list({
        query: `CountersignPending > 0 AND CountersignAgent = 'bank'`,
      })) {
        if (run.workflowId === runId) return run;
      }
      return undefined;
    }, 'the run in the inbox listing');
    const description = await h.client.workflow.getHandle(runId).describe();
    assert.equal((description.memo?.[PENDING_MEMO_KEY] as unknown[]).length, 3);

    // Safe and under-threshold calls run without anyone.
    await waitFor(async () => (executionsOf(runId).length === 2 ? true : undefined), 'c4 and c5 to run');
    assert.deepEqual(
      executionsOf(runId)
        .map((e) => e.context.toolCallId)
        .sort(),
      ['c4', 'c5'],
    );

    const third = await h.decide(byCall(pending, 'c3').trackingId, { type: 'approve' });
    assert.equal(third.accepted, true);
    assert.equal(third.status, 'approved');
    // c3 runs while c1 and c2 still wait.
    await waitFor(async () => executionsOf(runId).find((e) => e.context.toolCallId === 'c3'), 'c3 to run');
    assert.equal((await h.state(runId)).pending.length, 2);

    const first = await h.decide(byCall(pending, 'c1').trackingId, {
      type: 'reject',
      message: 'B is not a customer',
    });
    assert.equal(first.status, 'rejected');
    const second = await h.decide(byCall(pending, 'c2').trackingId, {
      type: 'edit',
      args: { from: 'A', to: 'C', amount: 1200 },
    });
    assert.equal(second.status, 'edited');

    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'done' });

    const runs = executionsOf(runId);
    assert.deepEqual(runs.map((e) => e.context.toolCallId).sort(), ['c2', 'c3', 'c4', 'c5']);
    const c2 = runs.find((e) => e.context.toolCallId === 'c2')!;
    assert.equal(c2.args.amount, 1200);
    assert.equal(c2.context.idempotencyKey, `${runId}/c2`);
    assert.deepEqual(c2.context.approvedBy, ['alice']);

    // What the model was told.
    const told = conversation.toolMessages();
    assert.match(told.get('c1')!, /refused this call to transfer/);
    assert.match(told.get('c1')!, /B is not a customer/);
    assert.match(told.get('c1')!, /Do not retry/);
    assert.match(told.get('c2')!, /"transferred":1200/);
    assert.match(told.get('c3')!, /"transferred":3500/);

    const state = await h.state(runId);
    assert.equal(state.status, 'completed');
    const decided = state.events.find((e) => e.type === 'approval.decided' && e.decision === 'edit');
    assert.deepEqual(decided?.diff, [{ path: '/amount', before: 2500, after: 1200 }]);
    assert.equal(decided?.actor, 'alice');
    assert.equal(decided?.channel, 'api');
    assert.deepEqual(toolMessages(state).get('c1'), told.get('c1'));
    await h.saveHistory('out-of-order', runId);
  });

  it('refuses an invalid edit, changing nothing, then applies a valid one', async () => {
    const input = uniqueInput('edit transfer');
    const conversation = h.fake.script(
      input,
      calls(call('transfer', { from: 'A', to: 'B', amount: 5000 }, 'e1')),
      say('ok'),
    );
    const runId = await h.start(bankAgent, input);
    const [view] = await h.waitForPending(runId, 1);

    const negative = await h.decide(view!.trackingId, {
      type: 'edit',
      args: { from: 'A', to: 'B', amount: -5 },
    });
    assert.equal(negative.accepted, false);
    assert.equal(negative.code, 'invalid_arguments');
    assert.equal(negative.status, 'pending');
    assert.deepEqual(
      negative.fieldErrors?.map((e) => e.path),
      ['/args/amount'],
    );

    const locked = await h.decide(view!.trackingId, {
      type: 'edit',
      args: { from: 'A', to: 'Z', amount: 4000 },
    });
    assert.equal(locked.code, 'invalid_arguments');
    assert.deepEqual(
      locked.fieldErrors?.map((e) => e.path),
      ['/args/to'],
    );

    const valid = await h.decide(view!.trackingId, {
      type: 'edit',
      args: { from: 'A', to: 'B', amount: 4000, memo: 'capped' },
    });
    assert.equal(valid.accepted, true);
    assert.equal(valid.status, 'edited');
    await h.result(runId);

    assert.deepEqual(
      executionsOf(runId).map((e) => e.args),
      [{ from: 'A', to: 'B', amount: 4000, memo: 'capped' }],
    );
    assert.match(conversation.toolMessages().get('e1')!, /"transferred":4000/);
    const state = await h.state(runId);
    const refused = state.events.filter((e) => e.type === 'decision.refused');
    assert.deepEqual(
      refused.map((e) => e.code),
      ['invalid_arguments', 'invalid_arguments'],
    );
    const approval = state.approvals[0]!;
    assert.equal(approval.status, 'edited');
    // Every channel's header reads the proposal as edited, not the model's.
    assert.equal(view!.description, 'Transfer 5000 from A to B');
    assert.equal(approval.description, 'Transfer 4000 from A to B');
    assert.deepEqual(approval.outcome?.diff, [
      { path: '/amount', before: 5000, after: 4000 },
      { path: '/memo', after: 'capped' },
    ]);
    await h.saveHistory('invalid-then-valid-edit', runId);
  });

  it('checks every decision: role, self-approval, decision type, unknown ids, duplicates', async () => {
    const input = uniqueInput('guarded');
    h.fake.script(
      input,
      calls(
        call('transfer', { from: 'A', to: 'B', amount: 5000 }, 'g1'),
        call('send_email', { to: 'x@y', body: 'hi' }, 'g2'),
      ),
      say('ok'),
    );
    const runId = await h.start(bankAgent, input, 'carol');
    const pending = await h.waitForPending(runId, 2);
    const transfer = byCall(pending, 'g1');
    // A tool with no policy at all is gated with the defaults: safe by default.
    const email = byCall(pending, 'g2');
    assert.deepEqual(email.approvers, ['admin']);
    assert.deepEqual(email.allowedDecisions, ['approve', 'edit', 'reject']);

    const intern = await h.decide(
      transfer.trackingId,
      { type: 'approve' },
      { approver: { id: 'ivan', roles: ['intern'] } },
    );
    assert.equal(intern.code, 'role_not_allowed');
    const self = await h.decide(
      transfer.trackingId,
      { type: 'approve' },
      { approver: { id: 'carol', roles: ['admin'] } },
    );
    assert.equal(self.code, 'self_approval');
    const respond = await h.decide(transfer.trackingId, { type: 'respond', result: { ok: true } });
    assert.equal(respond.code, 'decision_not_allowed');
    const unknown = await h.decide(`${runId}.99`, { type: 'approve' });
    assert.equal(unknown.code, 'unknown_approval');

    const approved = await h.decide(
      transfer.trackingId,
      { type: 'approve' },
      { requestId: 'req-1', channel: 'email' },
    );
    assert.equal(approved.accepted, true);
    // The same request again (a retried HTTP call): the first answer, nothing new.
    const retried = await h.decide(transfer.trackingId, { type: 'approve' }, { requestId: 'req-1' });
    assert.deepEqual(retried, approved);
    // A second decision on a settled call: refused, and never a second run.
    const late = await h.decide(
      transfer.trackingId,
      { type: 'reject' },
      { approver: { id: 'dan', roles: ['admin'] } },
    );
    assert.equal(late.code, 'already_settled');

    await h.decide(email.trackingId, { type: 'approve' });
    await h.result(runId);
    assert.equal(executionsOf(runId).filter((e) => e.tool === 'transfer').length, 1);
    const state = await h.state(runId);
    assert.deepEqual(
      state.events.filter((e) => e.type === 'decision.refused').map((e) => e.code),
      ['role_not_allowed', 'self_approval', 'decision_not_allowed', 'unknown_approval', 'already_settled'],
    );
    assert.equal(state.events.filter((e) => e.type === 'approval.decided').length, 2);
    await h.saveHistory('decision-checks', runId);
  });

  it('needs a quorum of distinct approvers; links are single-use; policy can deny outright', async () => {
    const input = uniqueInput('wire');
    const conversation = h.fake.script(
      input,
      calls(call('wire', { to: 'CH-1', amount: 90000 }, 'w1'), call('close_account', { account: 'A' }, 'w2')),
      say('ok'),
    );
    const runId = await h.start(bankAgent, input);
    const [view] = await h.waitForPending(runId, 1);
    assert.equal(view!.requiredApprovals, 2);

    const one = await h.decide(
      view!.trackingId,
      { type: 'approve' },
      { approver: treasurer1, linkNonce: 'n1', channel: 'email' },
    );
    assert.equal(one.accepted, true);
    assert.equal(one.status, 'pending');
    assert.equal(one.approvals, 1);
    const again = await h.decide(view!.trackingId, { type: 'approve' }, { approver: treasurer1 });
    assert.equal(again.code, 'already_approved_by_you');
    const reused = await h.decide(
      view!.trackingId,
      { type: 'approve' },
      { approver: treasurer2, linkNonce: 'n1', channel: 'email' },
    );
    assert.equal(reused.code, 'link_used');
    assert.equal(executionsOf(runId).length, 0);

    const two = await h.decide(
      view!.trackingId,
      { type: 'approve' },
      { approver: treasurer2, linkNonce: 'n2', channel: 'email' },
    );
    assert.equal(two.status, 'approved');
    assert.equal(two.approvals, 2);
    await h.result(runId);

    const runs = executionsOf(runId);
    assert.deepEqual(
      runs.map((e) => e.tool),
      ['wire'],
    );
    assert.deepEqual(runs[0]!.context.approvedBy, ['tina', 'tom']);
    assert.match(conversation.toolMessages().get('w2')!, /Policy refuses/);
    const state = await h.state(runId);
    assert.ok(state.events.some((e) => e.type === 'tool.denied' && e.tool === 'close_account'));
    await h.saveHistory('quorum', runId);
  });
});
