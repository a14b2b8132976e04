import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ApprovalView } from '../../protocol/index.js';
import { call, calls, say } from '../support/fake-model.js';
import { executionsOf } from './fixtures/agents.js';
import { startHarness, uniqueInput, waitFor, type Harness } from './fixtures/harness.js';
import { LARGE_PAYOUT_DEADLINE_SECONDS, treasuryAgent, treasuryPlanAgent } from './fixtures/tiered-agents.js';

const tess = { id: 'tess', roles: ['treasury'] };
const troy = { id: 'troy', roles: ['treasury'] };
const cora = { id: 'cora', roles: ['cfo'] };
const cole = { id: 'cole', roles: ['cfo'] };
const dana = { id: 'dana', roles: ['dba'] };

// An edit can never produce a call the policy would not let through with the approvals it has:
// the policy is evaluated again, in the workflow, on every edited call and plan step.
describe('the policy judges every edit', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  async function pendingPayout(amount: number, label: string) {
    const input = uniqueInput(label);
    h.fake.script(input, calls(call('payout', { to: 'acme', amount }, 'p1')), say('done'));
    const runId = await h.start(treasuryAgent, input, 'requester-rita');
    const [view] = await h.waitForPending(runId, 1);
    return { runId, view: view! };
  }

  it('refuses an edit into a denied call, naming the rule; the approval stays pending', async () => {
    const { runId, view } = await pendingPayout(250, 'edit into deny');
    assert.deepEqual(view.requirements, [
      {
        roles: ['treasury'],
        count: 1,
        reason: 'payout: amount over 100 and at most 1000',
      },
    ]);
    const refused = await h.decide(
      view.trackingId,
      { type: 'edit', args: { to: 'acme', amount: 50_000 } },
      { approver: tess },
    );
    assert.equal(refused.accepted, false);
    assert.equal(refused.code, 'policy_denied');
    assert.match(refused.reason!, /amount over 10000/);
    const state = await h.state(runId);
    assert.equal(state.pending[0]!.status, 'pending');
    assert.deepEqual(state.pending[0]!.args, { to: 'acme', amount: 250 });
    assert.ok(state.events.some((e) => e.type === 'decision.refused' && e.code === 'policy_denied'));

    assert.equal(
      (await h.decide(view.trackingId, { type: 'approve' }, { approver: tess })).status,
      'approved',
    );
    await h.result(runId);
    assert.deepEqual(
      executionsOf(runId).map((e) => e.args.amount),
      [250],
    );
  });

  it('an edit into a higher tier waits for that tier, with its earlier deadline', async () => {
    const { runId, view } = await pendingPayout(250, 'edit into higher tier');
    const edited = await h.decide(
      view.trackingId,
      { type: 'edit', args: { to: 'acme', amount: 5_000 } },
      { approver: tess },
    );
    assert.equal(edited.accepted, true);
    assert.equal(edited.status, 'pending', 'the editor alone cannot approve the large tier');

    const [raised] = (await h.state(runId)).pending as ApprovalView[];
    assert.deepEqual(
      raised!.requirements.map((r) => [r.roles, r.count, r.tier]),
      [
        [['treasury'], 1, undefined],
        [['cfo'], 2, 'large payout'],
      ],
    );
    assert.deepEqual(raised!.approvers, ['treasury', 'cfo']);
    assert.ok(
      Date.parse(raised!.deadline) - Date.parse(raised!.approvals[0]!.at) <=
        LARGE_PAYOUT_DEADLINE_SECONDS * 1000,
      'the large tier deadline applies from the edit',
    );
    const decided = (await h.state(runId)).events.find((e) => e.type === 'approval.decided');
    assert.ok(
      JSON.stringify(decided?.data).includes('large payout'),
      'the audit trail says what the edit raised',
    );

    // A second treasury approver does not count toward the cfo tier.
    assert.equal(
      (await h.decide(view.trackingId, { type: 'approve' }, { approver: troy })).status,
      'pending',
    );
    assert.equal(
      (await h.decide(view.trackingId, { type: 'approve' }, { approver: cora })).status,
      'pending',
    );
    assert.equal(executionsOf(runId).length, 0);
    assert.equal((await h.decide(view.trackingId, { type: 'approve' }, { approver: cole })).status, 'edited');
    await h.result(runId);
    assert.deepEqual(
      executionsOf(runId).map((e) => [e.args.amount, e.context.approvedBy]),
      [[5_000, ['tess', 'troy', 'cora', 'cole']]],
    );
    await h.saveHistory('edit-into-higher-tier', runId);
  });

  it('an edit below every threshold still waits for the approval as it stands (quorum of two)', async () => {
    const input = uniqueInput('edit below threshold');
    h.fake.script(input, calls(call('payroll', { employee: 'e-7', amount: 500 }, 'r1')), say('done'));
    const runId = await h.start(treasuryAgent, input, 'requester-rita');
    const [view] = await h.waitForPending(runId, 1);
    const edited = await h.decide(
      view!.trackingId,
      { type: 'edit', args: { employee: 'e-7', amount: 50 } },
      { approver: tess },
    );
    assert.equal(edited.status, 'pending');
    assert.equal(edited.approvals, 1);
    assert.equal(executionsOf(runId).length, 0);
    assert.equal(
      (await h.decide(view!.trackingId, { type: 'approve' }, { approver: troy })).status,
      'edited',
    );
    await h.result(runId);
    assert.deepEqual(
      executionsOf(runId).map((e) => e.args.amount),
      [50],
    );
  });

  it('plans: every call needs its own roles; an edited or added step is judged by its own policy', async () => {
    const input = uniqueInput('plan of two roles');
    h.fake.script(
      input,
      calls(
        call('payout', { to: 'acme', amount: 250 }, 'p1'),
        call('query', { sql: 'update t set x = 1' }, 'q1'),
      ),
      say('done'),
    );
    const runId = await h.start(treasuryPlanAgent, input, 'requester-rita');
    const [plan] = await h.waitForPending(runId, 1);
    assert.deepEqual(
      plan!.requirements.map((r) => r.roles),
      [['treasury'], ['dba']],
    );
    const steps = plan!.plan!;

    const denied = await h.decide(
      plan!.trackingId,
      { type: 'edit', plan: [{ ...steps[0]!, args: { to: 'acme', amount: 50_000 } }, steps[1]!] },
      { approver: tess },
    );
    assert.equal(denied.code, 'policy_denied');
    assert.match(denied.reason!, /plan step 1, payout/);

    const locked = await h.decide(
      plan!.trackingId,
      { type: 'edit', plan: [{ ...steps[0]!, args: { to: 'mallory', amount: 250 } }, steps[1]!] },
      { approver: tess },
    );
    assert.equal(locked.code, 'invalid_arguments');
    assert.deepEqual(locked.fieldErrors, [{ path: '/plan/0/args/to', message: 'to may not be edited' }]);

    const addedDenied = await h.decide(
      plan!.trackingId,
      { type: 'edit', plan: [...steps, { tool: 'payout', args: { to: 'acme', amount: 20_000 } }] },
      { approver: tess },
    );
    assert.equal(addedDenied.code, 'policy_denied');

    // An added large payout brings the cfo tier with it.
    const added = await h.decide(
      plan!.trackingId,
      { type: 'edit', plan: [...steps, { tool: 'payout', args: { to: 'acme', amount: 4_000 } }] },
      { approver: tess },
    );
    assert.equal(added.accepted, true);
    assert.equal(added.status, 'pending');
    // Treasury twice does not stand in for the dba or the cfos.
    assert.equal(
      (await h.decide(plan!.trackingId, { type: 'approve' }, { approver: troy })).status,
      'pending',
    );
    assert.equal(
      (await h.decide(plan!.trackingId, { type: 'approve' }, { approver: dana })).status,
      'pending',
    );
    assert.equal(
      (await h.decide(plan!.trackingId, { type: 'approve' }, { approver: cora })).status,
      'pending',
    );
    assert.equal(executionsOf(runId).length, 0);
    assert.equal(
      (await h.decide(plan!.trackingId, { type: 'approve' }, { approver: cole })).status,
      'edited',
    );
    await h.result(runId);
    await waitFor(async () => (executionsOf(runId).length === 3 ? true : undefined), 'the three steps');
    assert.deepEqual(
      executionsOf(runId).map((e) => e.tool),
      ['payout', 'query', 'payout'],
    );
  });
});
