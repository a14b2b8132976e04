import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Notifier } from '../../activities/notifier.js';
import type { ApprovalView, RunEvent, RunEventType, RunState } from '../../protocol/index.js';
import { call, calls, say } from '../support/fake-model.js';
import {
  analystAgent,
  bankAgent,
  escalationAgent,
  executionsOf,
  REFUND_DEADLINE_SECONDS,
  REFUND_ESCALATION_DEADLINE_SECONDS,
} from './fixtures/agents.js';
import {
  startTimeSkippingHarness,
  uniqueInput,
  waitFor,
  type TimeSkippingHarness,
} from './fixtures/harness.js';

// Deadlines of their real length, on Temporal's time-skipping test server: the server's clock jumps
// to each timer while a test waits on a run's result (or skips time itself), so a day passes at once.
// Every time checked below is workflow time, from the run's own events and views.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The one event of this type in the run's log. */
function eventOf(state: RunState, type: RunEventType): RunEvent {
  const found = state.events.filter((e) => e.type === type);
  assert.equal(found.length, 1, `one ${type} event, found ${found.length}`);
  return found[0]!;
}

const at = (event: RunEvent) => Date.parse(event.at);

/** Every notification the worker sent, as the notifier was handed it. */
const notified: ApprovalView[] = [];
const notifier: Notifier = {
  async notify(approval) {
    notified.push(structuredClone(approval));
  },
};

describe('approval deadlines (time-skipping test server)', () => {
  let h: TimeSkippingHarness;
  before(async () => {
    h = await startTimeSkippingHarness({ notifier });
  });
  after(async () => {
    await h.close();
  });

  it('refuses a call nobody decided within its one-day default deadline (onTimeout: reject)', async () => {
    const input = uniqueInput('pay invoice');
    const conversation = h.fake.script(
      input,
      calls(call('pay_invoice', { invoice: 'INV-7' }, 'p1')),
      say('not paid'),
    );
    const runId = await h.start(bankAgent, input);
    // Waiting on the result lets the server's clock run to the deadline.
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'not paid' });

    assert.equal(executionsOf(runId).length, 0);
    assert.match(conversation.toolMessages().get('p1')!, /before its deadline/);
    assert.match(conversation.toolMessages().get('p1')!, /Do not retry/);
    const state = await h.state(runId);
    const approval = state.approvals[0]!;
    assert.equal(approval.status, 'expired');
    assert.equal(Date.parse(approval.deadline) - Date.parse(approval.requestedAt), DAY);
    const requested = eventOf(state, 'approval.requested');
    const settled = eventOf(state, 'approval.settled');
    assert.equal(settled.status, 'expired');
    assert.ok(at(settled) >= Date.parse(approval.deadline), 'expired at its deadline, not before');
    assert.ok(at(settled) - at(requested) >= DAY);
    assert.equal(state.events.filter((e) => e.type === 'approval.escalated').length, 0);

    const late = await h.decide(approval.trackingId, { type: 'approve' });
    assert.equal(late.code, 'already_settled');
    await h.saveHistory('timeout-reject', runId);
  });

  it('keeps an approval open until its deadline: approved 23 hours in, the call runs', async () => {
    const input = uniqueInput('pay invoice late');
    const conversation = h.fake.script(
      input,
      calls(call('pay_invoice', { invoice: 'INV-8' }, 'p2')),
      say('paid'),
    );
    const runId = await h.start(bankAgent, input);
    const [view] = await h.waitForPending(runId, 1);
    await h.skip(23 * HOUR);

    const [still] = await h.waitForPending(runId, 1);
    assert.equal(still!.trackingId, view!.trackingId);
    assert.equal(still!.status, 'pending');
    assert.ok((await h.now()) < Date.parse(still!.deadline), 'the server clock is short of the deadline');
    const approved = await h.decide(view!.trackingId, { type: 'approve' });
    assert.equal(approved.status, 'approved');
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'paid' });

    assert.deepEqual(
      executionsOf(runId).map((e) => e.tool),
      ['pay_invoice'],
    );
    assert.equal(conversation.toolMessages().get('p2'), 'paid');
    const state = await h.state(runId);
    const decided = eventOf(state, 'approval.decided');
    assert.ok(at(decided) - at(eventOf(state, 'approval.requested')) >= 23 * HOUR);
    assert.ok(at(decided) < Date.parse(view!.deadline));
    assert.equal(eventOf(state, 'approval.settled').status, 'approved');
  });

  it('escalates after a day to other approvers, who have three more days (onTimeout: escalate)', async () => {
    const input = uniqueInput('refund');
    const conversation = h.fake.script(
      input,
      calls(call('refund', { customer: 'C-1', amount: 80 }, 'r1')),
      say('refunded'),
    );
    const runId = await h.start(bankAgent, input);
    const [first] = await h.waitForPending(runId, 1);
    assert.deepEqual(first!.approvers, ['support']);
    assert.equal(first!.escalated, false);
    assert.equal(
      Date.parse(first!.deadline) - Date.parse(first!.requestedAt),
      REFUND_DEADLINE_SECONDS * 1000,
    );

    await h.skip(REFUND_DEADLINE_SECONDS * 1000);
    const view = await waitFor(async () => {
      const [pending] = (await h.state(runId)).pending;
      return pending?.escalated ? pending : undefined;
    }, 'the refund to escalate');
    assert.deepEqual(view.approvers, ['manager']);
    const escalated = eventOf(await h.state(runId), 'approval.escalated');
    assert.ok(at(escalated) >= Date.parse(first!.deadline), 'escalated at the first deadline, not before');
    assert.equal(Date.parse(view.deadline) - at(escalated), REFUND_ESCALATION_DEADLINE_SECONDS * 1000);
    assert.deepEqual(escalated.data, { approvers: ['manager'], deadline: view.deadline });

    // The managers are told too, with the escalated approval.
    const told = await waitFor(async () => {
      const mine = notified.filter((n) => n.trackingId === view.trackingId);
      return mine.length === 2 ? mine : undefined;
    }, 'both notifications of the refund');
    assert.deepEqual(
      told.map((n) => [n.approvers, n.escalated]),
      [
        [['support'], false],
        [['manager'], true],
      ],
    );

    // Two days into the managers' three, the approval still waits for them.
    await h.skip(2 * DAY);
    const [still] = await h.waitForPending(runId, 1);
    assert.equal(still!.trackingId, view.trackingId);
    assert.ok((await h.now()) < Date.parse(view.deadline));

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
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'refunded' });

    assert.deepEqual(
      executionsOf(runId).map((e) => e.tool),
      ['refund'],
    );
    assert.match(conversation.toolMessages().get('r1')!, /"refunded":80/);
    const state = await h.state(runId);
    assert.equal(eventOf(state, 'approval.settled').status, 'approved');
    await h.saveHistory('timeout-escalate', runId);
  });

  /** Starts a payout needing two of support, signs it once as support, and lets the deadline pass. */
  async function escalatedAfterOneSignoff(tool: 'payout' | 'payout_kept') {
    const input = uniqueInput(`${tool} escalation`);
    h.fake.script(input, calls(call(tool, { customer: 'C-9', amount: 500 }, 'e1')), say('paid out'));
    const runId = await h.start(escalationAgent, input);
    const [first] = await h.waitForPending(runId, 1);
    const support = await h.decide(
      first!.trackingId,
      { type: 'approve' },
      { approver: { id: 'sam', roles: ['support'] } },
    );
    assert.equal(support.status, 'pending', 'one of two support sign-offs');
    await h.skip(REFUND_DEADLINE_SECONDS * 1000);
    const view = await waitFor(async () => {
      const [pending] = (await h.state(runId)).pending;
      return pending?.escalated ? pending : undefined;
    }, `the ${tool} to escalate`);
    return { runId, first: first!, view };
  }

  it('an escalation starts a new quorum: a first-tier sign-off no longer counts', async () => {
    const { runId, first, view } = await escalatedAfterOneSignoff('payout');
    assert.deepEqual(view.approvers, ['manager']);
    assert.deepEqual(view.approvals, [], 'the support sign-off does not count toward the managers');
    assert.equal(view.revision, first.revision + 1);

    const max = await h.decide(
      view.trackingId,
      { type: 'approve' },
      { approver: { id: 'max', roles: ['manager'] } },
    );
    assert.equal(max.status, 'pending', 'one manager of two');
    assert.equal(executionsOf(runId).length, 0);
    const mia = await h.decide(
      view.trackingId,
      { type: 'approve' },
      { approver: { id: 'mia', roles: ['manager'] } },
    );
    assert.equal(mia.status, 'approved');
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'paid out' });
    assert.deepEqual(
      executionsOf(runId).map((e) => e.tool),
      ['payout'],
    );
    const state = await h.state(runId);
    // The first sign-off stays in the audit trail, on the revision it was given on.
    const signed = state.events.filter((e) => e.type === 'approval.decided');
    assert.deepEqual(
      signed.map((e) => e.actor),
      ['sam', 'max', 'mia'],
    );
    assert.deepEqual(
      state.approvals[0]!.approvals.map((s) => [s.approver, s.revision]),
      [
        ['max', view.revision],
        ['mia', view.revision],
      ],
    );
  });

  it('with keepSignoffs, the escalation adds its roles and the first sign-off keeps counting', async () => {
    const { runId, first, view } = await escalatedAfterOneSignoff('payout_kept');
    assert.deepEqual(view.approvers, ['support', 'manager']);
    assert.deepEqual(
      view.approvals.map((s) => s.approver),
      ['sam'],
    );
    assert.equal(view.revision, first.revision, 'nothing the signers saw changed');
    assert.deepEqual(eventOf(await h.state(runId), 'approval.escalated').data, {
      approvers: ['manager'],
      deadline: view.deadline,
      keepSignoffs: true,
    });

    const max = await h.decide(
      view.trackingId,
      { type: 'approve' },
      { approver: { id: 'max', roles: ['manager'] } },
    );
    assert.equal(max.status, 'approved', "sam's sign-off and max's make two");
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'paid out' });
    assert.deepEqual(
      executionsOf(runId).map((e) => e.tool),
      ['payout_kept'],
    );
  });

  it('refuses an escalated call nobody decided within the escalation deadline either', async () => {
    const input = uniqueInput('refund nobody');
    const conversation = h.fake.script(
      input,
      calls(call('refund', { customer: 'C-2', amount: 40 }, 'r2')),
      say('no refund'),
    );
    const runId = await h.start(bankAgent, input);
    // Waiting on the result runs both deadlines out: four days.
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'no refund' });

    assert.equal(executionsOf(runId).length, 0);
    assert.match(conversation.toolMessages().get('r2')!, /before its deadline/);
    const state = await h.state(runId);
    const approval = state.approvals[0]!;
    assert.equal(approval.status, 'expired');
    assert.equal(approval.escalated, true);
    assert.deepEqual(approval.approvers, ['manager']);
    const requested = eventOf(state, 'approval.requested');
    const escalated = eventOf(state, 'approval.escalated');
    const settled = eventOf(state, 'approval.settled');
    assert.equal(settled.status, 'expired');
    assert.ok(at(escalated) - at(requested) >= REFUND_DEADLINE_SECONDS * 1000);
    assert.ok(at(settled) - at(escalated) >= REFUND_ESCALATION_DEADLINE_SECONDS * 1000);
    assert.ok(at(settled) >= Date.parse(approval.deadline));
  });

  it('goes on without an answer when nobody answers an ask_human question within a day', async () => {
    const input = uniqueInput('which region, nobody');
    const conversation = h.fake.script(
      input,
      calls(call('ask_human', { question: 'Which region?', choices: ['eu', 'us'] }, 'a2')),
      say('assuming eu'),
    );
    const runId = await h.start(analystAgent, input, 'rita');
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'assuming eu' });

    assert.match(
      conversation.toolMessages().get('a2')!,
      /No human answered this question before its deadline/,
    );
    const state = await h.state(runId);
    const question = state.approvals[0]!;
    assert.equal(question.kind, 'question');
    assert.equal(question.status, 'expired');
    assert.equal(Date.parse(question.deadline) - Date.parse(question.requestedAt), DAY);
    assert.ok(at(eventOf(state, 'approval.settled')) >= Date.parse(question.deadline));
  });
});
