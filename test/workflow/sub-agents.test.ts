import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { cancelRun, pauseRun, resumeRun, startRun } from '../../client/index.js';
import { defineAgent, toAgentSpec } from '../../define/index.js';
import {
  MAX_SUB_AGENT_DEPTH,
  parseTrackingId,
  RunOutput,
  type Approver,
  type RunInput,
} from '../../protocol/index.js';
import { call, calls, say } from '../support/fake-model.js';
import { dispatch, payments, subTransfers } from '../support/sub-agent-fixtures.js';
import type { TestWorker } from '../support/worker.js';
import { startHarness, toolMessages, uniqueInput, waitFor, type Harness } from './fixtures/harness.js';

const treasurer: Approver = { id: 'bob', roles: ['treasurer'] };
const operator: Approver = { id: 'olive', roles: ['operator'] };

describe('sub-agents', () => {
  let h: Harness;
  // Registered with the root agent only: the sub-agent's tool is reached through its definition.
  let worker: TestWorker;
  before(async () => {
    h = await startHarness();
    worker = await h.startWorker([dispatch]);
  });
  after(async () => {
    await h.close();
  });

  /** Starts a dispatch run whose model asks payments for one transfer, which waits for a treasurer. */
  async function paymentRun(label: string, amount: number, to = 'ann') {
    const input = uniqueInput(label);
    const task = `Send ${amount} to ${to} [${randomUUID().slice(0, 8)}]`;
    h.fake.script(input, calls(call('payments', { task }, 'c1')), say('Payments did it.'));
    h.fake.script(task, calls(call('transfer', { to, amount }, 't1')), say(`Sent ${amount} to ${to}.`));
    const { runId } = await startRun(h.client, {
      agent: dispatch,
      input,
      requester: 'sam',
      taskQueue: worker.taskQueue,
    });
    const [pending] = await h.waitForPending(runId, 1);
    return { runId, pending: pending! };
  }

  it("shows a sub-agent's approval at the root with its chain, decided by the sub-agent's own rules; its answer is the tool's output", async () => {
    const { runId, pending } = await paymentRun('pay through payments', 40);
    const childRunId = `${runId}--c1`;
    assert.equal(pending.tool, 'transfer');
    assert.equal(pending.runId, childRunId);
    assert.equal(
      parseTrackingId(pending.trackingId)?.runId,
      childRunId,
      'its tracking id routes to the child',
    );
    assert.deepEqual(pending.chain, {
      rootRunId: runId,
      rootCallId: 'c1',
      parentRunId: runId,
      agents: ['dispatch', 'payments'],
    });
    assert.equal(pending.requester, 'sam', "the sub-agent's run is for the root's requester");
    const root = await h.state(runId);
    assert.equal(root.status, 'waiting');
    assert.equal(root.approvals.length, 0, "the root's own record holds only its own approvals");
    // The child is a run of its own, whose view shows the same approval.
    const child = await h.state(childRunId);
    assert.equal(child.agent, 'payments');
    assert.deepEqual(child.pending[0]?.chain, pending.chain);

    // An operator decides the root's own tool, not the sub-agent's: the child's workflow refuses.
    const refused = await h.decide(pending.trackingId, { type: 'approve' }, { approver: operator });
    assert.equal(refused.accepted, false);
    assert.equal(refused.code, 'role_not_allowed');
    const accepted = await h.decide(pending.trackingId, { type: 'approve' }, { approver: treasurer });
    assert.equal(accepted.accepted, true);

    const outcome = await h.outcome(runId);
    assert.equal(outcome.status, 'completed');
    assert.equal(outcome.output, 'Payments did it.');
    const final = RunOutput.parse(await h.result(runId)).state!;
    assert.equal(toolMessages(final).get('c1'), 'Sent 40 to ann.');
    assert.deepEqual(
      subTransfers.filter((t) => t.runId === childRunId).map((t) => t.amount),
      [40],
    );
    const ran = final.events.find((e) => e.type === 'tool.ran' && e.tool === 'payments');
    assert.deepEqual(ran?.data, { toolCallId: 'c1', ok: true, runId: childRunId, status: 'completed' });
    assert.equal(final.pending.length, 0);
    // The root's history (the child started and answered), and the child's (its reports to the root).
    await h.saveHistory('sub-agent', runId);
    await h.saveHistory('sub-agent-child', childRunId);
  });

  it('cancelling the root cancels the sub-agent, which records who did and settles its approval', async () => {
    const { runId, pending } = await paymentRun('pay, then cancel', 41);
    await cancelRun(h.client, runId, { actor: 'lee', channel: 'api' });
    const root = await h.outcome(runId);
    assert.equal(root.status, 'cancelled');
    const child = RunOutput.parse(await h.result(pending.runId));
    assert.equal(child.status, 'cancelled');
    const cancelled = child.state!.events.find((e) => e.type === 'run.cancelled');
    assert.equal(cancelled?.actor, 'lee', 'the child records who cancelled the root');
    assert.equal(child.state!.approvals[0]?.status, 'cancelled');
    assert.equal(subTransfers.filter((t) => t.runId === pending.runId).length, 0);
  });

  it('pausing the root pauses the sub-agent; resuming it resumes the sub-agent', async () => {
    const { runId, pending } = await paymentRun('pay, paused', 42);
    await pauseRun(h.client, runId, { actor: 'lee', channel: 'api', message: 'hold the payments' });
    const paused = await waitFor(async () => {
      const child = await h.state(pending.runId);
      return child.status === 'paused' ? child : undefined;
    }, 'the sub-agent to pause');
    const entry = paused.events.find((e) => e.type === 'run.paused');
    assert.equal(entry?.actor, 'lee');
    assert.equal(entry?.message, 'hold the payments');

    await resumeRun(h.client, runId, { actor: 'lee', channel: 'api', message: 'go on' });
    const resumed = await waitFor(async () => {
      const child = await h.state(pending.runId);
      return child.status === 'waiting' ? child : undefined;
    }, 'the sub-agent to resume');
    // The correction is the root model's to read, not the sub-agent's.
    assert.equal(resumed.events.find((e) => e.type === 'run.resumed')?.message, undefined);
    await h.decide(pending.trackingId, { type: 'approve' }, { approver: treasurer });
    assert.equal((await h.outcome(runId)).status, 'completed');
  });

  it("a sub-agent's unknown outcome surfaces at the root like any approval, with its chain", async () => {
    const { runId, pending } = await paymentRun('pay unsure', 43, 'unsure');
    await h.decide(pending.trackingId, { type: 'approve' }, { approver: treasurer });
    const [unknown] = await waitFor(async () => {
      const root = await h.state(runId);
      return root.pending[0]?.kind === 'outcome' ? root.pending : undefined;
    }, "the sub-agent's unknown outcome at the root");
    assert.equal(unknown!.runId, pending.runId);
    assert.deepEqual(unknown!.chain?.agents, ['dispatch', 'payments']);
    // It did not happen: run it again.
    await h.decide(unknown!.trackingId, { type: 'approve' }, { approver: treasurer });
    assert.equal((await h.outcome(runId)).status, 'completed');
    assert.deepEqual(
      subTransfers.filter((t) => t.runId === pending.runId).map((t) => t.to),
      ['unsure'],
    );
  });

  it("a sub-agent's sub-agent's approval surfaces at the root, through the run between them", async () => {
    const top = defineAgent({
      name: 'top',
      description: 'Hands work down.',
      instructions: 'Ask dispatch.',
      tools: [],
      agents: [dispatch],
    });
    const topWorker = await h.startWorker([top]);
    const [input, middle, task] = ['top', 'middle', 'bottom'].map((label) => uniqueInput(label));
    h.fake.script(input!, calls(call('dispatch', { task: middle }, 'a1')), say('Top done.'));
    h.fake.script(middle!, calls(call('payments', { task }, 'b1')), say('Dispatch done.'));
    h.fake.script(task!, calls(call('transfer', { to: 'ann', amount: 44 }, 't1')), say('Sent.'));
    const { runId } = await startRun(h.client, { agent: top, input: input!, taskQueue: topWorker.taskQueue });
    const [pending] = await h.waitForPending(runId, 1);
    const dispatchRun = `${runId}--a1`;
    assert.equal(pending!.runId, `${dispatchRun}--b1`);
    assert.deepEqual(pending!.chain, {
      rootRunId: runId,
      rootCallId: 'a1',
      parentRunId: dispatchRun,
      agents: ['top', 'dispatch', 'payments'],
    });
    assert.equal((await h.state(dispatchRun)).pending[0]?.trackingId, pending!.trackingId);
    await h.decide(pending!.trackingId, { type: 'approve' }, { approver: treasurer });
    const outcome = await h.outcome(runId);
    assert.equal(outcome.output, 'Top done.');
    assert.equal((await h.state(runId)).pending.length, 0);
  });

  it('refuses, as a failed tool with a stable code, a sub-agent call that would close a cycle or nest too deep', async () => {
    // Specs built by hand, as a team starting agentWorkflow from its own workflow might: defineAgent
    // refuses both, so the run must too.
    const loop = { ...toAgentSpec(payments, 'fake-model'), name: 'loop', agents: ['loop'] };
    const cycleInput = uniqueInput('a cycle');
    h.fake.script(cycleInput, calls(call('loop', { task: 'again' }, 'l1')), say('stopped'));
    const deepInput = uniqueInput('too deep');
    h.fake.script(deepInput, calls(call('payments', { task: 'pay' }, 'd1')), say('stopped'));
    const chain = ['a', 'b', 'c', 'dispatch'];
    assert.equal(chain.length, MAX_SUB_AGENT_DEPTH + 1);
    const runs: [RunInput, string][] = [
      [{ agent: { ...loop, subAgents: [loop] }, input: cycleInput }, '[sub_agent_cycle]'],
      [
        {
          agent: toAgentSpec(dispatch, 'fake-model'),
          input: deepInput,
          chain: { rootRunId: 'r', rootCallId: 'x', parentRunId: 'r', agents: chain },
        },
        '[sub_agent_too_deep]',
      ],
    ];
    for (const [input, code] of runs) {
      const handle = await h.client.workflow.start('agentWorkflow', {
        workflowId: `run-${randomUUID()}`,
        taskQueue: worker.taskQueue,
        args: [input],
      });
      const output = RunOutput.parse(await handle.result());
      const message = [...toolMessages(output.state!).values()][0] ?? '';
      assert.ok(message.includes(code), message);
      assert.equal(output.output, 'stopped');
    }
  });

  it('refuses at definition time a sub-agent cycle, a nesting too deep, and a name clash', () => {
    const level = (name: string, agents: ReturnType<typeof defineAgent>[]) =>
      defineAgent({ name, description: '', instructions: '', tools: [], agents });
    const d3 = level('d3', [level('d4', [])]);
    const d1 = level('d1', [level('d2', [d3])]);
    assert.throws(() => level('d0', [d1]), /nest 4 deep; at most 3/);
    const a = level('a', []);
    const b = level('b', [a]);
    a.agents!.push(b);
    assert.throws(() => level('root', [b]), /call it again \(b → a → b\)/);
    assert.throws(
      () => defineAgent({ ...dispatch, name: 'clash', agents: [{ ...payments, name: 'page_oncall' }] }),
      /page_oncall names both a sub-agent and another of its tools/,
    );
  });
});
