import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, calls, say } from '../support/fake-model.js';
import { bankAgent, executionsOf } from './fixtures/agents.js';
import { startHarness, uniqueInput, waitFor, type Harness } from './fixtures/harness.js';

describe('approval deadlines', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  it('rejects a call nobody decided before its deadline (onTimeout: reject)', async () => {
    const input = uniqueInput('pay invoice');
    const conversation = h.fake.script(
      input,
      calls(call('pay_invoice', { invoice: 'INV-7' }, 'p1')),
      say('not paid'),
    );
    const runId = await h.start(bankAgent, input);
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'not paid' });

    assert.equal(executionsOf(runId).length, 0);
    assert.match(conversation.toolMessages().get('p1')!, /before its deadline/);
    assert.match(conversation.toolMessages().get('p1')!, /Do not retry/);
    const state = await h.state(runId);
    assert.equal(state.approvals[0]!.status, 'expired');
    const late = await h.decide(state.approvals[0]!.trackingId, { type: 'approve' });
    assert.equal(late.code, 'already_settled');
    await h.saveHistory('timeout-reject', runId);
  });

  it('escalates to other approvers with a new deadline (onTimeout: escalate)', async () => {
    const input = uniqueInput('refund');
    const conversation = h.fake.script(
      input,
      calls(call('refund', { customer: 'C-1', amount: 80 }, 'r1')),
      say('refunded'),
    );
    const runId = await h.start(bankAgent, input);
    const view = await waitFor(async () => {
      const [pending] = (await h.state(runId)).pending;
      return pending?.escalated ? pending : undefined;
    }, 'the refund to escalate');
    assert.deepEqual(view.approvers, ['manager']);
    assert.ok(Date.parse(view.deadline) - Date.parse(view.requestedAt) > 60_000);

    const support = await h.decide(
      view.trackingId,
      { type: 'approve' },
      { approver: { id: 'sam', roles: ['support'] } },
    );
    assert.equal(support.code, 'role_not_allowed');
    const manager = await h.decide(
      view.trackingId,
      { type: 'approve' },
      { approver: { id: 'max', roles: ['manager'] } },
    );
    assert.equal(manager.status, 'approved');
    await h.result(runId);

    assert.deepEqual(
      executionsOf(runId).map((e) => e.tool),
      ['refund'],
    );
    assert.match(conversation.toolMessages().get('r1')!, /"refunded":80/);
    const state = await h.state(runId);
    assert.ok(state.events.some((e) => e.type === 'approval.escalated'));
    await h.saveHistory('timeout-escalate', runId);
  });
});
