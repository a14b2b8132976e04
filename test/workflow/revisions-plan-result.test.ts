import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../define/index.js';
import { DecisionOutcome, DecisionSignal, type PlanStep, type RunState } from '../../protocol/index.js';
import { decisionOutcomeQuery, decisionSignal } from '../../workflows/definitions.js';
import { call, calls, say } from '../support/fake-model.js';
import { startTestWorker, type TestWorker } from '../support/worker.js';
import { executionsOf, record } from './fixtures/agents.js';
import { startHarness, uniqueInput, waitFor, type Harness } from './fixtures/harness.js';
import { testAgents } from './fixtures/test-agents.js';
import { treasuryAgent, treasuryPlanAgent } from './fixtures/tiered-agents.js';

// A countersignature covers exactly what its signer saw, for plans and results as for arguments:
// with a quorum of two, an approve given on the proposal before another approver's edit is refused
// (stale_revision), changes nothing, and what runs is what both signers were shown.

const cora = { id: 'cora', roles: ['cfo'] };
const cole = { id: 'cole', roles: ['cfo'] };
const tess = { id: 'tess', roles: ['treasury'] };
const troy = { id: 'troy', roles: ['treasury'] };
const ada = { id: 'ada', roles: ['auditor'] };
const ben = { id: 'ben', roles: ['auditor'] };

/** Runs at once; its output waits for two auditors before the model sees it. */
const fetchLedger = defineTool({
  name: 'fetch_ledger',
  description: 'Read an account ledger.',
  parameters: z.object({ account: z.string() }),
  approval: { when: 'auto', reviewResult: true, approvers: ['auditor'], requiredApprovals: 2 },
  async execute(args, context) {
    record('fetch_ledger', args, context);
    return { account: args.account, balance: 5000, internal: 'do-not-share' };
  },
});

const auditedAgent = defineAgent({
  name: 'audited',
  description: 'Reads ledgers whose output two auditors review.',
  instructions: 'You read ledgers.',
  model: 'fake-model',
  tools: [fetchLedger],
});

/** What the run's audit trail says about its refused and accepted decisions, in order. */
function decisionsOf(state: RunState) {
  return state.events
    .filter((e) => e.type === 'decision.refused' || e.type === 'approval.decided')
    .map((e) => [
      e.type,
      e.actor,
      e.decision,
      e.type === 'decision.refused' ? e.code : (e.data as { revision?: number } | undefined)?.revision,
    ]);
}

describe('revisions: plans, results, and an edit racing an approve', () => {
  let h: Harness;
  let worker: TestWorker | undefined;
  const startWorker = () =>
    startTestWorker({
      address: h.address,
      namespace: h.namespace,
      taskQueue: h.taskQueue,
      agents: [...testAgents, auditedAgent],
      model: { baseUrl: h.fake.url, apiKey: 'test-key' },
    });

  before(async () => {
    h = await startHarness({ worker: false });
    worker = await startWorker();
  });
  after(async () => {
    await worker?.stop();
    await h?.close();
  });

  it('plan: an approve on the plan before another approver reordered and edited it is refused', async () => {
    const input = uniqueInput('plan quorum of two');
    const conversation = h.fake.script(
      input,
      calls(
        call('payout', { to: 'acme', amount: 2000 }, 'p1'),
        call('payout', { to: 'globex', amount: 3000 }, 'p2'),
      ),
      say('paid'),
    );
    const runId = await h.start(treasuryPlanAgent, input, 'requester-rita');
    const [plan] = await h.waitForPending(runId, 1);
    assert.equal(plan!.kind, 'plan');
    assert.equal(plan!.revision, 1);
    assert.deepEqual(
      plan!.requirements.map((r) => [r.roles, r.count]),
      [[['cfo'], 2]],
    );

    // Cole reorders the plan and lowers the second payout (the same tier): his sign-off is on revision 2.
    const edited: PlanStep[] = [
      { tool: 'payout', args: { to: 'globex', amount: 1500 }, toolCallId: 'p2' },
      { tool: 'payout', args: { to: 'acme', amount: 2000 }, toolCallId: 'p1' },
    ];
    const edit = await h.decide(
      plan!.trackingId,
      { type: 'edit', plan: edited },
      { approver: cole, revision: 1 },
    );
    assert.equal(edit.accepted, true, edit.reason);
    assert.equal(edit.status, 'pending');
    assert.equal(edit.revision, 2);

    // Cora approves the plan she was shown, revision 1: refused, nothing changes.
    const stale = await h.decide(plan!.trackingId, { type: 'approve' }, { approver: cora, revision: 1 });
    assert.equal(stale.accepted, false);
    assert.equal(stale.code, 'stale_revision');
    assert.equal(stale.status, 'pending');
    assert.equal(stale.revision, 2);
    assert.equal(stale.approvals, 1);
    const waiting = await h.state(runId);
    assert.equal(waiting.pending.length, 1);
    assert.deepEqual(waiting.pending[0]!.plan, edited);
    assert.deepEqual(
      waiting.pending[0]!.approvals.map((s) => [s.approver, s.revision]),
      [['cole', 2]],
    );
    assert.equal(executionsOf(runId).length, 0);

    // On the current revision her approve completes the quorum.
    const current = await h.decide(plan!.trackingId, { type: 'approve' }, { approver: cora, revision: 2 });
    assert.equal(current.accepted, true, current.reason);
    assert.equal(current.status, 'edited');
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'paid' });

    // Each step ran once, in the edited order, with the edited amounts, signed by both.
    assert.deepEqual(
      executionsOf(runId).map((e) => [e.tool, e.args, e.context.approvedBy]),
      [
        ['payout', { to: 'globex', amount: 1500 }, ['cole', 'cora']],
        ['payout', { to: 'acme', amount: 2000 }, ['cole', 'cora']],
      ],
    );
    const state = await h.state(runId);
    const approval = state.approvals[0]!;
    assert.deepEqual(approval.outcome?.plan, edited);
    assert.deepEqual(
      approval.approvals.map((s) => [s.approver, s.revision]),
      [
        ['cole', 2],
        ['cora', 2],
      ],
    );
    assert.deepEqual(decisionsOf(state), [
      ['approval.decided', 'cole', 'edit', 2],
      ['decision.refused', 'cora', 'approve', 'stale_revision'],
      ['approval.decided', 'cora', 'approve', 2],
    ]);
    assert.match(conversation.toolMessages().get('p2')!, /"paid":1500/);
    assert.match(conversation.toolMessages().get('p1')!, /"paid":2000/);
  });

  it('result: an approve on the output before another reviewer edited it is refused', async () => {
    const input = uniqueInput('result quorum of two');
    const conversation = h.fake.script(
      input,
      calls(call('fetch_ledger', { account: 'ops' }, 'l1')),
      say('reported'),
    );
    const runId = await h.start(auditedAgent, input, 'requester-rita');
    const [review] = await h.waitForPending(runId, 1);
    assert.equal(review!.kind, 'result');
    assert.equal(review!.revision, 1);
    assert.deepEqual(review!.result, { account: 'ops', balance: 5000, internal: 'do-not-share' });
    assert.deepEqual(
      review!.requirements.map((r) => [r.roles, r.count]),
      [[['auditor'], 2]],
    );
    assert.equal(executionsOf(runId).length, 1);
    assert.equal(conversation.requests.length, 1);

    // Ben strikes the internal field: the output under review is revision 2, with his sign-off.
    const redacted = { account: 'ops', balance: 5000 };
    const edit = await h.decide(
      review!.trackingId,
      { type: 'edit', args: redacted },
      { approver: ben, revision: 1 },
    );
    assert.equal(edit.accepted, true, edit.reason);
    assert.equal(edit.status, 'pending');
    assert.equal(edit.revision, 2);

    // Ada approves the output she was shown, internal field and all: refused, nothing changes.
    const stale = await h.decide(review!.trackingId, { type: 'approve' }, { approver: ada, revision: 1 });
    assert.equal(stale.accepted, false);
    assert.equal(stale.code, 'stale_revision');
    assert.equal(stale.status, 'pending');
    assert.equal(stale.revision, 2);
    const waiting = await h.state(runId);
    assert.deepEqual(waiting.pending[0]!.result, redacted);
    assert.deepEqual(
      waiting.pending[0]!.approvals.map((s) => [s.approver, s.revision]),
      [['ben', 2]],
    );
    // The model has not been sent the output.
    assert.equal(conversation.requests.length, 1);

    const current = await h.decide(review!.trackingId, { type: 'approve' }, { approver: ada, revision: 2 });
    assert.equal(current.accepted, true, current.reason);
    assert.equal(current.status, 'edited');
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'reported' });

    // The tool ran once; the model was sent the edited output, once.
    assert.equal(executionsOf(runId).length, 1);
    assert.equal(conversation.requests.length, 2);
    const sent = conversation.requests[1]!.messages.filter((m) => m.role === 'tool');
    assert.deepEqual(
      sent.map((m) => (m.role === 'tool' ? [m.tool_call_id, m.content] : [])),
      [['l1', JSON.stringify(redacted)]],
    );
    const state = await h.state(runId);
    assert.deepEqual(state.approvals[0]!.outcome?.result, redacted);
    assert.deepEqual(
      state.approvals[0]!.approvals.map((s) => [s.approver, s.revision]),
      [
        ['ben', 2],
        ['ada', 2],
      ],
    );
    assert.deepEqual(decisionsOf(state), [
      ['approval.decided', 'ben', 'edit', 2],
      ['decision.refused', 'ada', 'approve', 'stale_revision'],
      ['approval.decided', 'ada', 'approve', 2],
    ]);
  });

  it('race: an edit and an approve on the old revision, taken in one workflow task, end in one outcome', async () => {
    const input = uniqueInput('edit approve race');
    h.fake.script(input, calls(call('payroll', { employee: 'e-9', amount: 500 }, 'r1')), say('adjusted'));
    const runId = await h.start(treasuryAgent, input, 'requester-rita');
    const [view] = await h.waitForPending(runId, 1);
    const trackingId = view!.trackingId;
    const handle = h.client.workflow.getHandle(runId);
    // Nothing in flight (the notification activity has finished), so the worker can go away cleanly.
    await waitFor(
      async () => ((await handle.describe()).raw.pendingActivities?.length ? undefined : true),
      'no activity in flight',
    );

    // With no worker up, both decisions land in the history before the workflow runs either: Troy's
    // edit from the inbox, and Tess's approve, from the terminal, of the 500 she was shown.
    await worker!.stop();
    worker = undefined;
    const editId = `edit-${randomUUID()}`;
    const approveId = `approve-${randomUUID()}`;
    const signal = (payload: DecisionSignal) => handle.signal(decisionSignal, DecisionSignal.parse(payload));
    await signal({
      trackingId,
      decision: { type: 'edit', args: { employee: 'e-9', amount: 400 } },
      approver: troy,
      channel: 'inbox',
      requestId: editId,
      revision: 1,
    });
    await signal({
      trackingId,
      decision: { type: 'approve' },
      approver: tess,
      channel: 'cli',
      requestId: approveId,
      revision: 1,
    });
    worker = await startWorker();

    const outcomeOf = (requestId: string) =>
      waitFor(async () => {
        const outcome = await handle.query(decisionOutcomeQuery, requestId);
        return outcome ? DecisionOutcome.parse(outcome) : undefined;
      }, `the outcome of ${requestId}`);
    const edit = await outcomeOf(editId);
    const stale = await outcomeOf(approveId);
    assert.equal(edit.accepted, true, edit.reason);
    assert.equal(edit.revision, 2);
    assert.equal(stale.accepted, false);
    assert.equal(stale.code, 'stale_revision');
    assert.equal(stale.status, 'pending');
    assert.equal(stale.approvals, 1);

    // Both signals were delivered to one workflow task: no task ran between them.
    const events = (await handle.fetchHistory()).events ?? [];
    const signalled = events.flatMap((e, i) => (e.workflowExecutionSignaledEventAttributes ? [i] : []));
    assert.equal(signalled.length, 2);
    assert.ok(
      !events.slice(signalled[0], signalled[1]).some((e) => e.workflowTaskStartedEventAttributes),
      'the edit and the approve are taken together',
    );

    const waiting = await h.state(runId);
    assert.deepEqual(waiting.pending[0]!.args, { employee: 'e-9', amount: 400 });
    assert.deepEqual(
      waiting.pending[0]!.approvals.map((s) => [s.approver, s.revision]),
      [['troy', 2]],
    );
    assert.equal(executionsOf(runId).length, 0);

    // Tess, shown 400, countersigns it; the payroll runs once, with 400.
    const current = await h.decide(trackingId, { type: 'approve' }, { approver: tess, revision: 2 });
    assert.equal(current.status, 'edited');
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'adjusted' });
    assert.deepEqual(
      executionsOf(runId).map((e) => [e.args, e.context.approvedBy]),
      [[{ employee: 'e-9', amount: 400 }, ['troy', 'tess']]],
    );
    const state = await h.state(runId);
    assert.deepEqual(decisionsOf(state), [
      ['approval.decided', 'troy', 'edit', 2],
      ['decision.refused', 'tess', 'approve', 'stale_revision'],
      ['approval.decided', 'tess', 'approve', 2],
    ]);
    const refused = state.events.find((e) => e.type === 'decision.refused');
    assert.equal(refused?.channel, 'cli');
    assert.equal(
      state.approvals[0]!.status,
      'edited',
      'one outcome: the edit, countersigned on its own revision',
    );
    await h.saveHistory('edit-approve-race', runId);
  });
});
