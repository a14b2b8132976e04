import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ApprovalView, Approver, PlanStep } from '../../protocol/index.js';
import { call, calls, say } from '../support/fake-model.js';
import { executionsOf } from './fixtures/agents.js';
import { scriptAttempts } from './fixtures/dispatch-agent.js';
import { startHarness, uniqueInput, waitFor, type Harness } from './fixtures/harness.js';
import { paymentsAgent, paymentsPlanAgent } from './fixtures/limits-agents.js';

const tess: Approver = { id: 'tess', roles: ['treasury'] };
const troy: Approver = { id: 'troy', roles: ['treasury'] };
const tina: Approver = { id: 'tina', roles: ['treasury'] };
const rita: Approver = { id: 'rita', roles: ['treasury'] };
const dan: Approver = { id: 'dan', roles: ['dba'] };
const olga: Approver = { id: 'olga', roles: ['operator'] };

const note = (text: string, id: string) => call('post_note', { text }, id);

describe('a step a reviewer adds to a plan is their own proposal, judged by its tool’s policy', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  /** A run whose turn is one plan of the model's calls, and the plan waiting for review. */
  async function planOf(requester: string | undefined, ...proposed: ReturnType<typeof call>[]) {
    const input = uniqueInput('a plan');
    const conversation = h.fake.script(input, calls(...proposed), say('Done.'));
    const runId = await h.start(paymentsPlanAgent, input, requester);
    const [plan] = await h.waitForPending(runId, 1);
    assert.equal(plan!.kind, 'plan');
    return { runId, conversation, plan: plan!, steps: plan!.plan! };
  }

  /** The run's one pending approval, once it is of `kind`. */
  async function pendingOf(runId: string, kind: ApprovalView['kind']): Promise<ApprovalView> {
    return waitFor(async () => {
      const [pending] = await h.waitForPending(runId, 1);
      return pending!.kind === kind ? pending : undefined;
    }, `a pending ${kind}`);
  }

  const edit = (plan: ApprovalView, steps: PlanStep[], approver: Approver) =>
    h.decide(plan.trackingId, { type: 'edit', plan: steps }, { approver });

  it('the requester’s own sign-off does not approve a payment they add to themselves', async () => {
    const { runId, plan, steps } = await planOf('rita', note('month end', 'n1'));
    const added = await edit(plan, [...steps, { tool: 'pay', args: { to: 'rita', amount: 2_000 } }], rita);
    assert.deepEqual([added.accepted, added.status], [true, 'pending'], JSON.stringify(added));
    const [view] = await h.waitForPending(runId, 1);
    assert.equal(view!.plan![1]!.addedBy, 'rita');
    const payRule = view!.requirements.find((r) => r.notBy?.includes('rita'));
    assert.ok(payRule, JSON.stringify(view!.requirements));
    assert.deepEqual(payRule.roles, ['treasury']);
    assert.match(payRule.reason, /plan step 2, pay, added by rita/);
    assert.equal(executionsOf(runId).length, 0);

    // Her approving again changes nothing; another treasury member's sign-off runs the plan.
    const again = await h.decide(plan.trackingId, { type: 'approve' }, { approver: rita });
    assert.equal(again.accepted, false);
    assert.equal((await h.decide(plan.trackingId, { type: 'approve' }, { approver: troy })).status, 'edited');
    await h.result(runId);
    assert.deepEqual(
      executionsOf(runId).map((e) => [e.tool, e.args.to ?? e.args.text]),
      [
        ['post_note', 'month end'],
        ['pay', 'rita'],
      ],
    );
  });

  it('a step of a tool that locks fields needs someone else, even where self-approval is allowed', async () => {
    const { runId, plan, steps } = await planOf('rita', note('tags', 'n1'));
    const added = await edit(
      plan,
      [...steps, { tool: 'tag_invoice', args: { invoice: 'INV-9', tag: 'paid' } }],
      rita,
    );
    assert.equal(added.status, 'pending', JSON.stringify(added));
    assert.equal((await h.decide(plan.trackingId, { type: 'approve' }, { approver: troy })).status, 'edited');
    await h.result(runId);
    assert.deepEqual(
      executionsOf(runId).map((e) => e.tool),
      ['post_note', 'tag_invoice'],
    );
  });

  it('a sender cannot name someone else as the one who added a step', async () => {
    const { runId, plan, steps } = await planOf(undefined, note('forged adder', 'n1'));
    const forged = await edit(
      plan,
      [...steps, { tool: 'pay', args: { to: 'tess', amount: 2_000 }, addedBy: 'troy' }],
      tess,
    );
    assert.equal(forged.status, 'pending');
    const [view] = await h.waitForPending(runId, 1);
    assert.equal(view!.plan![1]!.addedBy, 'tess');
    // A later edit that keeps the step keeps who added it; troy's sign-off completes the plan.
    const kept = await edit(plan, view!.plan!.slice().reverse(), troy);
    assert.deepEqual([kept.accepted, kept.status], [true, 'edited'], JSON.stringify(kept));
    await h.result(runId);
    const settled = (await h.state(runId)).approvals.find((a) => a.trackingId === plan.trackingId);
    assert.equal(settled?.outcome?.plan?.[0]?.addedBy, 'tess');
    assert.deepEqual(
      executionsOf(runId).map((e) => e.tool),
      ['pay', 'post_note'],
    );
  });

  it('a quorum stays a quorum of others: two sign-offs besides the one who added the step', async () => {
    const { runId, plan, steps } = await planOf(undefined, note('big one', 'n1'));
    const added = await edit(plan, [...steps, { tool: 'pay', args: { to: 'acme', amount: 60_000 } }], tess);
    assert.equal(added.status, 'pending');
    assert.equal(
      (await h.decide(plan.trackingId, { type: 'approve' }, { approver: troy })).status,
      'pending',
    );
    assert.equal(executionsOf(runId).length, 0);
    assert.equal((await h.decide(plan.trackingId, { type: 'approve' }, { approver: tina })).status, 'edited');
    await h.result(runId);
    assert.deepEqual(
      executionsOf(runId).map((e) => e.tool),
      ['post_note', 'pay'],
    );
  });

  it('a tool that allows no edit is never added, nor cut and added back changed', async () => {
    const { runId, plan, steps } = await planOf(
      undefined,
      note('wires', 'n1'),
      call('wire_out', { to: 'acme', amount: 500 }, 'w1'),
    );
    const added = await edit(
      plan,
      [...steps, { tool: 'wire_out', args: { to: 'mallory', amount: 9 } }],
      tess,
    );
    assert.deepEqual([added.accepted, added.code], [false, 'invalid_arguments']);
    assert.deepEqual(
      added.fieldErrors?.map((e) => e.path),
      ['/plan/2/tool'],
    );
    const swapped = await edit(
      plan,
      [steps[0]!, { tool: 'wire_out', args: { to: 'acme', amount: 50_000 } }],
      tess,
    );
    assert.deepEqual([swapped.accepted, swapped.code], [false, 'invalid_arguments']);
    await h.decide(plan.trackingId, { type: 'reject' }, { approver: tess });
    await h.result(runId);
    assert.equal(executionsOf(runId).length, 0);
  });

  it('splitting a payment into automatic steps reaches the tier of their total', async () => {
    const { runId, plan, steps } = await planOf(undefined, note('split', 'n1'));
    const split = Array.from({ length: 3 }, () => ({ tool: 'pay', args: { to: 'acme', amount: 400 } }));
    const added = await edit(plan, [...steps, ...split], tess);
    // 400 and 800 are automatic; the third brings the run to 1,200: treasury, and not tess.
    assert.equal(added.status, 'pending', JSON.stringify(added));
    const [view] = await h.waitForPending(runId, 1);
    const rule = view!.requirements.find((r) => r.notBy?.includes('tess'));
    assert.match(rule?.reason ?? '', /the run's total of amount \(1200 with this call\) over 1000/);
    assert.match(rule?.reason ?? '', /plan step 4/);
    assert.equal(executionsOf(runId).length, 0);
    assert.equal((await h.decide(plan.trackingId, { type: 'approve' }, { approver: troy })).status, 'edited');
    await h.result(runId);
    assert.deepEqual(
      executionsOf(runId).map((e) => e.tool),
      ['post_note', 'pay', 'pay', 'pay'],
    );
  });

  it('a plan step’s secret and unknown outcome go to its own tool’s roles, not the plan’s', async () => {
    const target = `svc-${Date.now()}`;
    scriptAttempts(target, 'unknown');
    const { runId, plan } = await planOf(
      undefined,
      note('exports', 'n1'),
      call('export_report', { report: 'revenue' }, 'x1'),
      call('restart_service', { target }, 'r1'),
    );
    assert.deepEqual(new Set(plan.approvers), new Set(['treasury', 'dba', 'operator']));
    await h.decide(plan.trackingId, { type: 'approve' }, { approver: tess });
    await h.decide(plan.trackingId, { type: 'approve' }, { approver: dan });
    await h.decide(plan.trackingId, { type: 'approve' }, { approver: olga });

    const secret = await pendingOf(runId, 'secret');
    assert.deepEqual(secret.approvers, ['dba']);
    const wrong = await h.decide(secret.trackingId, { type: 'reject' }, { approver: tess });
    assert.deepEqual([wrong.accepted, wrong.code], [false, 'role_not_allowed']);
    await h.decide(secret.trackingId, { type: 'reject' }, { approver: dan });

    const unknown = await pendingOf(runId, 'outcome');
    assert.deepEqual(unknown.approvers, ['operator']);
    const notTreasury = await h.decide(unknown.trackingId, { type: 'reject' }, { approver: tess });
    assert.deepEqual([notTreasury.accepted, notTreasury.code], [false, 'role_not_allowed']);
    await h.decide(unknown.trackingId, { type: 'reject' }, { approver: olga });
    await h.result(runId);
  });
});

describe('every call has its own identity', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  it('two calls with one id, and an id used again in a later turn, are three calls', async () => {
    const input = uniqueInput('same ids');
    const conversation = h.fake.script(
      input,
      calls(call('pay', { to: 'ann', amount: 10 }, 'dup'), call('pay', { to: 'bob', amount: 20 }, 'dup')),
      calls(
        call('pay', { to: 'cy', amount: 30 }, 'dup'),
        call('lookup_balance', { account: 'x' }, 'added-1'),
      ),
      say('Paid three people.'),
    );
    const runId = await h.start(paymentsAgent, input);
    await h.result(runId);
    const paid = executionsOf(runId).filter((e) => e.tool === 'pay');
    assert.deepEqual(
      paid.map((e) => e.args.to),
      ['ann', 'bob', 'cy'],
    );
    const ids = paid.map((e) => e.context.toolCallId);
    assert.equal(new Set(ids).size, 3, ids.join(', '));
    assert.equal(new Set(paid.map((e) => e.context.idempotencyKey)).size, 3);
    assert.equal(ids[0], 'dup', 'a unique id is kept as the model gave it');

    // The model reads each result against its own call.
    const last = conversation.requests.at(-1)!;
    const assistants = last.messages.filter((m) => m.role === 'assistant');
    const callIds = assistants.flatMap((m) =>
      (m.role === 'assistant' ? (m.tool_calls ?? []) : []).map((c) => c.id),
    );
    assert.equal(new Set(callIds).size, 4, callIds.join(', '));
    assert.ok(!callIds.includes('added-1'), 'the ids of reviewer-added steps are the run’s own');
    const answers = new Map(
      last.messages.flatMap((m) => (m.role === 'tool' ? [[m.tool_call_id, m.content] as const] : [])),
    );
    assert.match(answers.get(ids[0]!)!, /ann/);
    assert.match(answers.get(ids[1]!)!, /bob/);
    assert.match(answers.get(ids[2]!)!, /cy/);
  });
});
