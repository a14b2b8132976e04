import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import proto from '@temporalio/proto';
import { pauseRun, resumeRun, startRun } from '../../client/index.js';
import { searchAttributeKeys } from '../../workflows/search-attributes.js';
import { call, calls, say } from '../support/fake-model.js';
import { historyChain } from '../support/history-chain.js';
import type { TestWorker } from '../support/worker.js';
import { bankAgent, executionsOf } from './fixtures/agents.js';
import { startHarness, uniqueInput, waitFor, type Harness } from './fixtures/harness.js';
import { heldAgent, holdLookup } from './fixtures/held-agent.js';

/**
 * Lowered from the server's default of 4,096 events so a dozen turns reach it; the server then
 * says, in each workflow task, that the run should continue as new.
 */
const SUGGEST_AT_EVENTS = 40;
const TURNS = 12;

const EventType = proto.temporal.api.enums.v1.EventType;

describe('a long run continues as new when the server suggests it', () => {
  let h: Harness;
  let heldWorker: TestWorker;
  before(async () => {
    h = await startHarness({
      dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': SUGGEST_AT_EVENTS },
    });
    heldWorker = await h.startWorker([heldAgent]);
  });
  after(async () => {
    await h.close();
  });

  it('carries transcript, approvals, outcomes and the event log; tracking ids and decisions keep working', async () => {
    const input = uniqueInput('long run');
    const script = Array.from({ length: TURNS }, (_, i) =>
      i === 2
        ? calls(call('transfer', { from: 'ops', to: 'acme', amount: 2000 }, `t${i}`))
        : i === TURNS - 2
          ? calls(call('transfer', { from: 'ops', to: 'zeta', amount: 3000 }, `t${i}`))
          : calls(call('lookup_balance', { account: `A${i}` }, `t${i}`)),
    );
    h.fake.script(input, ...script, say('All balances read; two transfers made.'));
    const runId = await h.start(bankAgent, input);

    // The first transfer's approval, decided in the first execution.
    const [first] = await h.waitForPending(runId, 1);
    const approved = await h.decide(first!.trackingId, { type: 'approve' }, { requestId: 'first-approve' });
    assert.equal(approved.status, 'approved', JSON.stringify(approved));

    // The second is asked for by a later execution of the chain.
    const [second] = await h.waitForPending(runId, 1);
    assert.notEqual(second!.trackingId, first!.trackingId);
    const midway = await h.state(runId);
    assert.ok(
      midway.events.some((e) => e.type === 'run.continued'),
      'the run continued before its second approval',
    );

    // What was decided before the continuation is still there, and answers as it did.
    const again = await h.decide(first!.trackingId, { type: 'approve' }, { requestId: 'first-approve' });
    assert.deepEqual(again, approved);
    const late = await h.decide(first!.trackingId, { type: 'reject', message: 'too late' });
    assert.deepEqual([late.accepted, late.status], [false, 'approved']);
    assert.equal(midway.approvals.find((a) => a.trackingId === first!.trackingId)?.status, 'approved');

    await h.decide(second!.trackingId, { type: 'approve' });
    const outcome = await h.outcome(runId);
    assert.equal(outcome.status, 'completed');
    const final = await h.state(runId);
    assert.equal(final.turns, TURNS + 1);
    // The whole conversation: system, task, and an answer and a tool message each turn, then the answer.
    assert.equal(final.transcript.length, 2 + TURNS * 2 + 1);
    // One event log across the chain: ids in order, none twice, none missing.
    assert.deepEqual(
      final.events.map((e) => e.id),
      final.events.map((_, i) => i + 1),
    );
    assert.equal(final.events.filter((e) => e.type === 'run.started').length, 1);
    assert.equal(final.approvals.length, 2);
    assert.deepEqual(
      executionsOf(runId).map((e) => e.tool),
      script.map((_, i) => (i === 2 || i === TURNS - 2 ? 'transfer' : 'lookup_balance')),
      'every tool ran once, in order',
    );

    const executions = await historyChain(h.client, runId);
    const continued = final.events.filter((e) => e.type === 'run.continued').length;
    assert.equal(executions.length, continued + 1);
    assert.ok(continued >= 2, `${continued} continuations`);
    // Each execution continued within a turn of the suggestion, well short of the limits.
    for (const events of executions.slice(0, -1)) {
      assert.equal(events.at(-1)?.eventType, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);
      assert.ok(events.length < SUGGEST_AT_EVENTS * 2, `${events.length} events in an execution`);
    }
    await h.saveHistory('continue-as-new', runId);
  });

  it('a run paused at a turn boundary continues paused, shows paused, and resumes with the correction', async () => {
    const input = uniqueInput('paused across a continuation');
    const accounts = Array.from({ length: 10 }, (_, i) => `acct-${i}-${input.slice(-9, -1)}`);
    const holds = accounts.map((account) => holdLookup(account));
    const conversation = h.fake.script(
      input,
      ...accounts.map((account, i) => calls(call('slow_lookup', { account }, `s${i}`))),
      say('Balances read, in euros.'),
    );
    const { runId } = await startRun(h.client, { agent: heldAgent, input, taskQueue: heldWorker.taskQueue });
    const handle = h.client.workflow.getHandle(runId);
    // Lookups run one by one; the run is paused during the first that leaves its execution's history
    // near the suggestion (the pause and the lookup's end add a few events): it stops at the
    // boundary after that lookup, where the server suggests continuing.
    let paused = false;
    for (const hold of holds) {
      await hold.started;
      const length = Number((await handle.describe()).raw.workflowExecutionInfo?.historyLength ?? 0);
      if (!paused && length >= SUGGEST_AT_EVENTS - 8) {
        await pauseRun(h.client, runId, { actor: 'lee', channel: 'api', message: 'check the currency' });
        await waitFor(
          async () => ((await h.state(runId)).status === 'paused' ? true : undefined),
          'the pause',
        );
        paused = true;
        hold.release();
        break;
      }
      hold.release();
    }
    assert.ok(paused, 'the run reached the suggestion');
    const continuedPaused = await waitFor(async () => {
      const state = await h.state(runId);
      return state.events.at(-1)?.type === 'run.continued' ? state : undefined;
    }, 'the run to continue while paused');
    assert.equal(continuedPaused.status, 'paused');
    const described = await h.client.workflow.getHandle(runId).describe();
    assert.equal(described.typedSearchAttributes.get(searchAttributeKeys.status), 'paused');
    const asked = conversation.requests.length;

    await resumeRun(h.client, runId, { actor: 'lee', channel: 'inbox', message: 'Report in euros.' });
    for (const hold of holds) hold.release();
    const result = await h.result(runId);
    assert.deepEqual([result.status, result.output], ['completed', 'Balances read, in euros.']);
    // The model's first call after the resume reads the correction last.
    const next = conversation.requests[asked]!.messages.at(-1)!;
    assert.deepEqual([next.role, next.content], ['user', 'Report in euros.']);
    const control = result.state!.events.filter((e) => e.type === 'run.paused' || e.type === 'run.resumed');
    assert.deepEqual(
      control.map((e) => [e.type, e.actor]),
      [
        ['run.paused', 'lee'],
        ['run.resumed', 'lee'],
      ],
    );
  });
});

describe('a turn whose calls wait for people continues as new with its approvals pending', () => {
  let h: Harness;
  const notified: string[] = [];
  before(async () => {
    h = await startHarness({
      // Below the first turn's history: the server suggests continuing while the turn waits.
      dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 12 },
      notifier: {
        async notify(approval) {
          notified.push(approval.trackingId);
        },
      },
    });
  });
  after(async () => {
    await h.close();
  });

  it('keeps the answers it had, waits on the same approvals, and asks nobody twice', async () => {
    const input = uniqueInput('mid-turn');
    const conversation = h.fake.script(
      input,
      calls(
        call('lookup_balance', { account: 'ops' }, 'look'),
        call('transfer', { from: 'ops', to: 'acme', amount: 2000 }, 'pay-acme'),
        call('transfer', { from: 'ops', to: 'zeta', amount: 3000 }, 'pay-zeta'),
      ),
      say('Paid acme; zeta was refused.'),
    );
    const runId = await h.start(bankAgent, input);
    const [acme, zeta] = await h.waitForPending(runId, 2);
    const handedOn = await waitFor(async () => {
      const state = await h.state(runId);
      return state.events.find((e) => e.type === 'run.continued') ? state : undefined;
    }, 'the run to continue while its approvals wait');
    assert.equal(handedOn.status, 'waiting');
    assert.deepEqual(
      handedOn.pending.map((p) => p.trackingId),
      [acme!.trackingId, zeta!.trackingId],
    );
    const handed = handedOn.events.find((e) => e.type === 'run.continued')?.data as {
      pendingApprovals?: number;
    };
    assert.equal(handed.pendingApprovals, 2);

    await h.decide(acme!.trackingId, { type: 'approve' });
    await h.decide(zeta!.trackingId, { type: 'reject', message: 'not this quarter' });
    const outcome = await h.outcome(runId);
    assert.deepEqual([outcome.status, outcome.output], ['completed', 'Paid acme; zeta was refused.']);

    // The lookup answered in the first execution is not run again; the model reads all three answers.
    assert.deepEqual(
      executionsOf(runId).map((e) => [e.tool, e.args.to ?? e.args.account]),
      [
        ['lookup_balance', 'ops'],
        ['transfer', 'acme'],
      ],
    );
    const last = conversation.requests.at(-1)!.messages;
    assert.deepEqual(
      last.filter((m) => m.role === 'tool').map((m) => m.tool_call_id),
      ['look', 'pay-acme', 'pay-zeta'],
    );
    assert.match(String(last.at(-1)?.content), /not this quarter/);
    assert.deepEqual(notified.filter((id) => id === acme!.trackingId || id === zeta!.trackingId).sort(), [
      acme!.trackingId,
      zeta!.trackingId,
    ]);
    const executions = await historyChain(h.client, runId);
    assert.equal(executions.length, 2, 'one continuation, in the middle of the turn');
    const first = (await h.client.workflow.getHandle(runId).describe()).raw.workflowExecutionInfo?.firstRunId;
    assert.ok(first);
    await h.saveHistory('continue-mid-turn', runId, first);
    await h.saveHistory('continue-mid-turn-resumed', runId);
  });
});
