import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Approver } from '../../protocol/index.js';
import { call, calls, say } from '../support/fake-model.js';
import { executionsOf } from './fixtures/agents.js';
import { startHarness, uniqueInput, type Harness } from './fixtures/harness.js';
import { paymentsAgent } from './fixtures/limits-agents.js';

/** Lowered from the server's 4,096 events so a few turns reach it, and the run continues as new. */
const SUGGEST_AT_EVENTS = 40;

const troy: Approver = { id: 'troy', roles: ['treasury'] };

describe('cumulative limits: the model splitting a payment reaches the tier of the total', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({
      dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': SUGGEST_AT_EVENTS },
    });
  });
  after(async () => {
    await h.close();
  });

  it('counts every call across turns and continue-as-new, in one turn too; a refused call stops counting', async () => {
    const input = uniqueInput('split payments');
    const reads = Array.from({ length: 6 }, (_, i) =>
      calls(call('lookup_balance', { account: `A${i}` }, `l${i}`)),
    );
    h.fake.script(
      input,
      calls(call('pay', { to: 'acme', amount: 400 }, 'p1')),
      calls(call('pay', { to: 'acme', amount: 400 }, 'p2')),
      ...reads,
      // 800 so far: 150 is automatic, then the second 150 passes 1,000 and waits for treasury.
      calls(call('pay', { to: 'acme', amount: 150 }, 'p3'), call('pay', { to: 'acme', amount: 150 }, 'p4')),
      calls(call('pay', { to: 'acme', amount: 60 }, 'p5')),
      say('Paid acme in parts.'),
    );
    const runId = await h.start(paymentsAgent, input);

    const [held] = await h.waitForPending(runId, 1);
    assert.equal(held!.toolCallId, 'p4');
    assert.deepEqual(held!.approvers, ['treasury']);
    assert.match(
      held!.requirements[0]!.reason,
      /the run's total of amount \(1100 with this call\) over 1000/,
    );
    const state = await h.state(runId);
    assert.ok(
      state.events.some((e) => e.type === 'run.continued'),
      'the run continued as new before the limit was reached',
    );
    assert.deepEqual(
      executionsOf(runId).map((e) => e.args.amount),
      [400, 400, 150],
    );

    // Refused: it no longer counts, so the next 60 brings the run to 1,010 and still needs treasury.
    await h.decide(held!.trackingId, { type: 'reject', message: 'not today' }, { approver: troy });
    const [next] = await h.waitForPending(runId, 1);
    assert.equal(next!.toolCallId, 'p5');
    assert.match(next!.requirements[0]!.reason, /\(1010 with this call\)/);
    await h.decide(next!.trackingId, { type: 'approve' }, { approver: troy });
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'Paid acme in parts.' });
    assert.deepEqual(
      executionsOf(runId).map((e) => e.args.amount),
      [400, 400, 150, 60],
    );
  });
});
