import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { startRun } from '../../client/index.js';
import type { Approver, RunState } from '../../protocol/index.js';
import { call, calls, say, type ScriptStep } from '../support/fake-model.js';
import type { TestWorker } from '../support/worker.js';
import { executionsOf } from './fixtures/agents.js';
import { startHarness, uniqueInput, waitFor, type Harness } from './fixtures/harness.js';
import { standingAgent } from './fixtures/standing-agents.js';

const tara: Approver = { id: 'tara', roles: ['treasury'] };
const theo: Approver = { id: 'theo', roles: ['treasury'] };

const pay = (amount: number, id: string, vendor = 'acme') =>
  calls(call('pay_vendor', { vendor, amount }, id));

/** The calls the run's standing approvals covered, in order, as its events record them. */
const coveredCalls = (state: RunState) =>
  state.events
    .filter((e) => e.type === 'standing.used')
    .map((e) => (e.data as { toolCallId: string }).toolCallId);

describe('standing approvals: a call approved with the rest like it for this run', () => {
  let h: Harness;
  let worker: TestWorker;
  before(async () => {
    h = await startHarness();
    worker = await h.startWorker([standingAgent]);
  });
  after(async () => {
    await h?.close();
  });

  /** The run's outcome once it has finished; a run that asks again instead fails the test at once. */
  const finished = async (runId: string) => {
    const state = await waitFor(async () => {
      const now = await h.state(runId);
      return now.status === 'completed' || now.status === 'waiting' ? now : undefined;
    }, `${runId} to finish`);
    assert.equal(
      state.status,
      'completed',
      `still asks: ${state.pending.map((p) => p.toolCallId).join(', ')}`,
    );
    return h.outcome(runId);
  };

  const start = async (label: string, ...script: ScriptStep[]) => {
    const input = uniqueInput(label);
    h.fake.script(input, ...script);
    const { runId } = await startRun(h.client, { agent: standingAgent, input, taskQueue: worker.taskQueue });
    return runId;
  };

  it('covers two later calls within its bounds; one over the approved amount, or to another vendor, asks', async () => {
    const runId = await start(
      'standing covers two',
      pay(500, 'p1'),
      pay(300, 'p2'),
      pay(500, 'p3'),
      pay(600, 'p4'),
      pay(50, 'p5', 'zeta'),
      say('Paid.'),
    );
    const [first] = await h.waitForPending(runId, 1);
    assert.deepEqual(first!.standing, {
      maxSeconds: 3600,
      maxCalls: 3,
      bounds: { amount: { min: 0, max: 'approved' } },
    });
    const granted = await h.decide(
      first!.trackingId,
      { type: 'approve', standing: true },
      { approver: tara },
    );
    assert.equal(granted.status, 'approved', JSON.stringify(granted));

    const [over] = await h.waitForPending(runId, 1);
    assert.equal(over!.toolCallId, 'p4', 'the payment over the approved amount asks');
    const state = await h.state(runId);
    assert.deepEqual(coveredCalls(state), ['p2', 'p3']);
    const used = state.events.filter((e) => e.type === 'standing.used');
    for (const event of used) {
      assert.equal(event.trackingId, first!.trackingId);
      assert.deepEqual((event.data as { grantedBy: string[]; fromCall: string }).grantedBy, ['tara']);
      assert.equal((event.data as { fromCall: string }).fromCall, 'p1');
    }
    const [standing] = state.standing ?? [];
    assert.deepEqual(
      [standing?.status, standing?.covered, standing?.grantedBy, standing?.trackingId],
      ['active', ['p2', 'p3'], ['tara'], first!.trackingId],
    );
    // The covered calls ran as the treasurer's, under no approval of their own.
    const ran = executionsOf(runId).map((e) => [
      e.context.toolCallId,
      e.context.approvedBy,
      e.context.trackingId,
    ]);
    assert.deepEqual(ran, [
      ['p1', ['tara'], first!.trackingId],
      ['p2', ['tara'], undefined],
      ['p3', ['tara'], undefined],
    ]);

    await h.decide(over!.trackingId, { type: 'approve' }, { approver: theo });
    const [otherVendor] = await h.waitForPending(runId, 1);
    assert.equal(otherVendor!.toolCallId, 'p5', 'a call whose locked field differs asks');
    await h.decide(otherVendor!.trackingId, { type: 'approve' }, { approver: theo });
    assert.deepEqual(await finished(runId), { status: 'completed', output: 'Paid.' });
    await h.saveHistory('standing-approval', runId);
  });

  it('covers at most maxCalls later calls: the next one asks', async () => {
    const runId = await start(
      'standing runs out',
      pay(100, 'p1'),
      pay(100, 'p2'),
      pay(100, 'p3'),
      pay(100, 'p4'),
      pay(100, 'p5'),
      say('Paid five times.'),
    );
    const [first] = await h.waitForPending(runId, 1);
    await h.decide(first!.trackingId, { type: 'approve', standing: true }, { approver: tara });
    const [fifth] = await h.waitForPending(runId, 1);
    assert.equal(fifth!.toolCallId, 'p5');
    const state = await h.state(runId);
    assert.deepEqual(coveredCalls(state), ['p2', 'p3', 'p4']);
    assert.equal(state.standing?.[0]?.status, 'used');
    await h.decide(fifth!.trackingId, { type: 'reject', message: 'enough' }, { approver: tara });
    assert.equal((await finished(runId)).status, 'completed');
  });

  it('leaves cumulative limits in force: past the run total, a covered-looking call needs two treasurers', async () => {
    const runId = await start(
      'standing and run totals',
      pay(900, 'p1'),
      pay(900, 'p2'),
      pay(900, 'p3'),
      say('Paid.'),
    );
    const [first] = await h.waitForPending(runId, 1);
    await h.decide(first!.trackingId, { type: 'approve', standing: true }, { approver: tara });
    const [third] = await h.waitForPending(runId, 1);
    assert.equal(third!.toolCallId, 'p3');
    assert.equal(third!.requiredApprovals, 2);
    assert.match(third!.requirements[0]!.reason, /\(2700 with this call\)/);
    const state = await h.state(runId);
    assert.deepEqual(coveredCalls(state), ['p2']);
    assert.equal(state.standing?.[0]?.status, 'active');
    await h.decide(third!.trackingId, { type: 'approve' }, { approver: tara });
    await h.decide(third!.trackingId, { type: 'approve' }, { approver: theo });
    assert.equal((await finished(runId)).status, 'completed');
  });

  it('with a quorum of two, exists once both signers asked for it', async () => {
    const wire = (id: string) => calls(call('wire_abroad', { to: 'acme-gmbh', amount: 5000 }, id));
    const runId = await start('standing quorum two', wire('w1'), wire('w2'), say('Wired twice.'));
    const [first] = await h.waitForPending(runId, 1);
    const one = await h.decide(first!.trackingId, { type: 'approve', standing: true }, { approver: tara });
    assert.deepEqual([one.status, one.approvals], ['pending', 1]);
    assert.equal((await h.state(runId)).standing, undefined, 'one sign-off of two grants nothing');
    await h.decide(first!.trackingId, { type: 'approve', standing: true }, { approver: theo });
    assert.deepEqual(await finished(runId), { status: 'completed', output: 'Wired twice.' });
    const state = await h.state(runId);
    assert.deepEqual(coveredCalls(state), ['w2']);
    assert.deepEqual(state.standing?.[0]?.grantedBy, ['tara', 'theo']);
    const w2 = executionsOf(runId).find((e) => e.context.toolCallId === 'w2');
    assert.deepEqual(w2?.context.approvedBy, ['tara', 'theo']);
  });

  it('with a quorum of two, grants nothing when one signer approved this call alone', async () => {
    const wire = (id: string) => calls(call('wire_abroad', { to: 'acme-gmbh', amount: 5000 }, id));
    const runId = await start('standing quorum two, one alone', wire('w1'), wire('w2'), say('Wired twice.'));
    const [first] = await h.waitForPending(runId, 1);
    await h.decide(first!.trackingId, { type: 'approve', standing: true }, { approver: tara });
    await h.decide(first!.trackingId, { type: 'approve' }, { approver: theo });
    const [second] = await h.waitForPending(runId, 1);
    assert.equal(second!.toolCallId, 'w2');
    assert.equal((await h.state(runId)).standing, undefined);
    await h.decide(second!.trackingId, { type: 'reject' }, { approver: tara });
    assert.equal((await finished(runId)).status, 'completed');
  });

  it('ends when its time has passed (workflow time): the next call like it asks', async () => {
    const topUp = (id: string) => calls(call('top_up', { card: 'c-7', amount: 20 }, id));
    const runId = await start(
      'standing expires',
      topUp('t1'),
      calls(call('close_account', { account: 'old' }, 'c1')),
      topUp('t2'),
      say('Done.'),
    );
    const [first] = await h.waitForPending(runId, 1);
    await h.decide(first!.trackingId, { type: 'approve', standing: true }, { approver: tara });
    const [close] = await h.waitForPending(runId, 1);
    assert.equal(close!.toolCallId, 'c1');
    const expiresAt = Date.parse((await h.state(runId)).standing![0]!.expiresAt);
    // The run judges the next top-up after this decision: let its two seconds pass first.
    await sleep(Math.max(0, expiresAt - Date.now()) + 250);
    await h.decide(close!.trackingId, { type: 'approve' }, { approver: tara });
    const [second] = await h.waitForPending(runId, 1);
    assert.equal(second!.toolCallId, 't2');
    const state = await h.state(runId);
    assert.deepEqual(coveredCalls(state), []);
    assert.equal(state.standing?.[0]?.status, 'expired');
    await h.decide(second!.trackingId, { type: 'approve' }, { approver: tara });
    assert.equal((await finished(runId)).status, 'completed');
  });

  it('is refused, and recorded, on a tool whose policy offers none', async () => {
    const runId = await start(
      'standing refused',
      calls(call('close_account', { account: 'old' }, 'c1')),
      say('Closed.'),
    );
    const [close] = await h.waitForPending(runId, 1);
    assert.equal(close!.standing, undefined);
    const refused = await h.decide(
      close!.trackingId,
      { type: 'approve', standing: true },
      { approver: tara },
    );
    assert.deepEqual(
      [refused.accepted, refused.code, refused.status],
      [false, 'standing_not_allowed', 'pending'],
    );
    const state = await h.state(runId);
    assert.ok(state.events.some((e) => e.type === 'decision.refused' && e.code === 'standing_not_allowed'));
    await h.decide(close!.trackingId, { type: 'approve' }, { approver: tara });
    assert.equal((await finished(runId)).status, 'completed');
  });
});

describe('standing approvals across continue-as-new', () => {
  /** Lowered from the server's 4,096 events so a few turns reach it, and the run continues as new. */
  const SUGGEST_AT_EVENTS = 40;
  let h: Harness;
  let worker: TestWorker;
  before(async () => {
    h = await startHarness({
      dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': SUGGEST_AT_EVENTS },
    });
    worker = await h.startWorker([standingAgent]);
  });
  after(async () => {
    await h?.close();
  });

  it('goes along with the run: the next execution uses what is left of it, then asks', async () => {
    const input = uniqueInput('standing continues');
    h.fake.script(
      input,
      pay(100, 'p1'),
      pay(100, 'p2'),
      pay(100, 'p3'),
      pay(100, 'p4'),
      pay(100, 'p5'),
      say('Paid five times.'),
    );
    const { runId } = await startRun(h.client, { agent: standingAgent, input, taskQueue: worker.taskQueue });
    const [first] = await h.waitForPending(runId, 1);
    await h.decide(first!.trackingId, { type: 'approve', standing: true }, { approver: tara });
    const [fifth] = await h.waitForPending(runId, 1);
    assert.equal(fifth!.toolCallId, 'p5');
    const state = await h.state(runId);
    const types = state.events.map((e) => e.type);
    assert.ok(types.includes('run.continued'), 'the run continued as new');
    assert.ok(
      types.indexOf('run.continued') < types.lastIndexOf('standing.used'),
      'a call was covered after the run continued',
    );
    assert.deepEqual(coveredCalls(state), ['p2', 'p3', 'p4']);
    assert.equal(state.standing?.[0]?.status, 'used');
    await h.decide(fifth!.trackingId, { type: 'reject' }, { approver: tara });
    assert.equal((await h.outcome(runId)).status, 'completed');
  });
});
