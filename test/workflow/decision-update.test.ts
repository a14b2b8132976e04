import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client, type WorkflowClientInterceptor } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection } from '@temporalio/worker';
import { sendDecision, startRun } from '../../client/index.js';
import { DecisionOutcome, type Approver, type ApprovalView, type RunState } from '../../protocol/index.js';
import { decisionSignal } from '../../workflows/definitions.js';
import { createWorker } from '../../worker/index.js';
import { call, calls, say } from '../support/fake-model.js';
import { startTestWorker, type TestWorker } from '../support/worker.js';
import { bankAgent, executionsOf } from './fixtures/agents.js';
import { admin, startHarness, uniqueInput, waitFor, type Harness } from './fixtures/harness.js';
import { testAgents } from './fixtures/test-agents.js';

// A decision goes as an update a worker answers at once, and as the signal when none does: either
// way the workflow takes a request id once, and checks and records it as it always has.

const BEFORE_UPDATE_WORKFLOW = fileURLToPath(
  new URL('./fixtures/workflow-before-decision-update.ts', import.meta.url),
);
const tina: Approver = { id: 'tina', roles: ['treasurer'] };
const tom: Approver = { id: 'tom', roles: ['treasurer'] };

/** A client on the harness's connection that counts what it sends: updates, signals, queries. */
function countingClient(h: Harness) {
  const sent = { updates: 0, signals: 0, queries: 0 };
  const counter: WorkflowClientInterceptor = {
    startUpdate: (input, next) => (sent.updates++, next(input)),
    signal: (input, next) => (sent.signals++, next(input)),
    query: (input, next) => (sent.queries++, next(input)),
  };
  const client = new Client({
    connection: h.client.connection,
    namespace: h.namespace,
    interceptors: { workflow: [counter] },
  });
  return { client, sent };
}

/** The decision updates and decision signals in the run's history. */
async function deliveries(h: Harness, runId: string) {
  const events = (await h.client.workflow.getHandle(runId).fetchHistory()).events ?? [];
  return {
    accepted: events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length,
    completed: events.filter((e) => e.workflowExecutionUpdateCompletedEventAttributes).length,
    signals: events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'decision')
      .length,
  };
}

const decisionsIn = (state: RunState) =>
  state.events.filter((e) => e.type === 'approval.decided' || e.type === 'decision.refused');

const approve = (view: ApprovalView, approver: Approver, requestId = randomUUID()) => ({
  trackingId: view.trackingId,
  decision: { type: 'approve' as const },
  approver,
  channel: 'api' as const,
  requestId,
  revision: view.revision,
});

describe('decisions by update, with the signal as fall-back', () => {
  let h: Harness;
  let worker: TestWorker | undefined;
  const startWorker = () =>
    startTestWorker({
      address: h.address,
      namespace: h.namespace,
      taskQueue: h.taskQueue,
      agents: testAgents,
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

  /** A bank run waiting on one transfer (one of admin or treasurer) or one wire (two treasurers). */
  async function waitingRun(tool: 'transfer' | 'wire') {
    const input = uniqueInput(`one ${tool}`);
    h.fake.script(
      input,
      calls(
        tool === 'transfer'
          ? call('transfer', { from: 'A', to: 'B', amount: 1500 }, 't1')
          : call('wire', { to: 'CH-1', amount: 900 }, 't1'),
      ),
      say('done'),
    );
    const runId = await h.start(bankAgent, input, 'requester-bob');
    const [view] = await h.waitForPending(runId, 1);
    return { runId, view: view! };
  }

  it('a worker answers the update with the outcome: no signal, no outcome query', async () => {
    const { runId, view } = await waitingRun('transfer');
    const { client, sent } = countingClient(h);
    const outcome = await sendDecision(client, approve(view, admin), { waitMs: 30_000 });
    assert.ok(outcome);
    DecisionOutcome.parse(outcome);
    assert.equal(outcome.accepted, true, outcome.reason);
    assert.equal(outcome.status, 'approved');
    assert.deepEqual(sent, { updates: 1, signals: 0, queries: 0 });
    assert.deepEqual(await deliveries(h, runId), { accepted: 1, completed: 1, signals: 0 });
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'done' });
    assert.equal(executionsOf(runId).length, 1);
    await h.saveHistory('decision-update', runId);
  });

  it('a refused decision comes back refused through the update and is in the audit trail', async () => {
    const { runId, view } = await waitingRun('transfer');
    const { client, sent } = countingClient(h);
    const intern = { id: 'ivy', roles: ['intern'] };
    const wrongRole = await sendDecision(client, approve(view, intern), { waitMs: 30_000 });
    assert.equal(wrongRole?.accepted, false);
    assert.equal(wrongRole?.code, 'role_not_allowed');
    const stale = await sendDecision(client, { ...approve(view, admin), revision: view.revision + 1 });
    assert.equal(stale?.accepted, false);
    assert.equal(stale?.code, 'stale_revision');
    assert.equal(stale?.status, 'pending');
    assert.deepEqual(sent, { updates: 2, signals: 0, queries: 0 });
    assert.deepEqual(await deliveries(h, runId), { accepted: 2, completed: 2, signals: 0 });
    assert.deepEqual(
      decisionsIn(await h.state(runId)).map((e) => [e.type, e.actor, e.code]),
      [
        ['decision.refused', 'ivy', 'role_not_allowed'],
        ['decision.refused', 'alice', 'stale_revision'],
      ],
    );
    assert.equal((await h.state(runId)).pending.length, 1);
    assert.equal(executionsOf(runId).length, 0);
    await h.decide(view.trackingId, { type: 'approve' });
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'done' });
  });

  it('an update and a signal with the same request id decide once', async () => {
    // Two treasurers must sign: a request taken twice would complete the quorum alone.
    const { runId, view } = await waitingRun('wire');
    const handle = h.client.workflow.getHandle(runId);
    const first = randomUUID();
    const byUpdate = await sendDecision(h.client, approve(view, tina, first), { waitMs: 30_000 });
    assert.equal(byUpdate?.accepted, true, byUpdate?.reason);
    assert.equal(byUpdate?.approvals, 1);
    await handle.signal(decisionSignal, approve(view, tom, first));
    const waiting = await h.state(runId);
    assert.deepEqual(
      waiting.pending[0]?.approvals.map((s) => s.approver),
      ['tina'],
      'the signal with the same request id changed nothing',
    );

    const second = randomUUID();
    await handle.signal(decisionSignal, approve(view, tom, second));
    // The same request id by update: the signal's outcome, whether the run still waits or has ended.
    const again = await sendDecision(h.client, approve(view, tina, second), { waitMs: 30_000 });
    assert.equal(again?.accepted, true, again?.reason);
    assert.equal(again?.status, 'approved');
    assert.equal(again?.approvals, 2);
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'done' });
    assert.deepEqual(
      decisionsIn(await h.state(runId)).map((e) => [e.type, e.actor]),
      [
        ['approval.decided', 'tina'],
        ['approval.decided', 'tom'],
      ],
    );
    const delivered = await deliveries(h, runId);
    assert.ok(delivered.accepted >= 1, 'the first decision came by update');
    assert.equal(delivered.signals, 2);
    assert.equal(executionsOf(runId).length, 1);
  });

  it('with no worker up it sends the signal; a worker started later takes the decision once', async () => {
    const { runId, view } = await waitingRun('transfer');
    const handle = h.client.workflow.getHandle(runId);
    // Nothing in flight (the notification activity has finished), so the worker can go away cleanly.
    await waitFor(
      async () => ((await handle.describe()).raw.pendingActivities?.length ? undefined : true),
      'no activity in flight',
    );
    await worker!.stop();
    worker = undefined;
    const { client, sent } = countingClient(h);
    const requestId = randomUUID();
    const waiting = await sendDecision(client, approve(view, admin, requestId), { waitMs: 1_000 });
    assert.equal(waiting, null, 'taken by the server, not yet by the workflow');
    assert.equal(sent.updates, 1);
    assert.equal(sent.signals, 1);

    worker = await startWorker();
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'done' });
    // The update the server still held came with the signal: one decision, and both answered by it.
    assert.deepEqual(await deliveries(h, runId), { accepted: 1, completed: 1, signals: 1 });
    const state = await h.state(runId);
    assert.deepEqual(
      decisionsIn(state).map((e) => [e.type, e.actor]),
      [['approval.decided', 'alice']],
    );
    assert.equal(executionsOf(runId).length, 1);
    // Sent again by the same request id: the same outcome, from the update the server completed.
    const retried = await sendDecision(h.client, approve(view, admin, requestId));
    assert.equal(retried?.accepted, true);
    assert.equal(retried?.status, 'approved');
  });

  it('a worker without the update handler refuses it, and the signal decides', async () => {
    const connection = await NativeConnection.connect({ address: h.address });
    const taskQueue = `before-update-${randomUUID()}`;
    const older = await createWorker({
      connection,
      namespace: h.namespace,
      taskQueue,
      agents: testAgents,
      model: { baseUrl: h.fake.url, apiKey: 'test-key' },
      workflowBundle: await bundleWorkflowCode({ workflowsPath: BEFORE_UPDATE_WORKFLOW }),
      workerOptions: { shutdownGraceTime: '1 second' },
    });
    const running = older.run();
    try {
      const input = uniqueInput('one transfer on an older worker');
      h.fake.script(input, calls(call('transfer', { from: 'A', to: 'B', amount: 1500 }, 't1')), say('done'));
      const { runId } = await startRun(h.client, { agent: bankAgent, input, taskQueue });
      const [view] = await h.waitForPending(runId, 1);
      const { client, sent } = countingClient(h);
      const outcome = await sendDecision(client, approve(view!, admin), { waitMs: 30_000 });
      assert.equal(outcome?.accepted, true, outcome?.reason);
      assert.equal(outcome?.status, 'approved');
      assert.equal(sent.updates, 1);
      assert.equal(sent.signals, 1);
      assert.ok(sent.queries >= 1, 'the outcome read by query');
      // A refused update leaves nothing in the history.
      assert.deepEqual(await deliveries(h, runId), { accepted: 0, completed: 0, signals: 1 });
      assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'done' });
    } finally {
      older.shutdown();
      await running;
      await connection.close();
    }
  });
});

describe('decisions on a server that takes no updates', () => {
  let h: Harness;
  before(async () => {
    // As a server before updates, or one whose operator turned them off, answers them.
    h = await startHarness({ dynamicConfig: { 'frontend.enableUpdateWorkflowExecution': false } });
  });
  after(async () => {
    await h?.close();
  });

  it('sends the signal and reads the outcome', async () => {
    const input = uniqueInput('one transfer, no updates');
    h.fake.script(input, calls(call('transfer', { from: 'A', to: 'B', amount: 1500 }, 't1')), say('done'));
    const runId = await h.start(bankAgent, input, 'requester-bob');
    const [view] = await h.waitForPending(runId, 1);
    const { client, sent } = countingClient(h);
    const outcome = await sendDecision(client, approve(view!, admin), { waitMs: 30_000 });
    assert.equal(outcome?.accepted, true, outcome?.reason);
    assert.equal(sent.updates, 1);
    assert.equal(sent.signals, 1);
    assert.deepEqual(await deliveries(h, runId), { accepted: 0, completed: 0, signals: 1 });
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'done' });
  });
});
