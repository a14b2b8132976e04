import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ApprovalView, Approver } from '../../protocol/index.js';
import { call, calls, say } from '../support/fake-model.js';
import { executionsOf } from './fixtures/agents.js';
import { dispatchAgent, scriptAttempts } from './fixtures/dispatch-agent.js';
import { startHarness, toolMessages, uniqueInput, type Harness } from './fixtures/harness.js';

const operator: Approver = { id: 'olga', roles: ['operator'] };
const otherOperator: Approver = { id: 'omar', roles: ['operator'] };

describe('unknown outcomes: a tool that does not dedupe is never repeated without a person', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  /** Starts a run whose one call is `tool` on `target`, then a final answer. */
  async function runOne(tool: string, target: string, answer = 'Done.') {
    const input = uniqueInput(`${tool} ${target}`);
    const conversation = h.fake.script(input, calls(call(tool, { target }, 'c1')), say(answer));
    return { runId: await h.start(dispatchAgent, input), conversation };
  }

  /** The run's one pending approval, once it is of `kind`. */
  async function pendingOf(runId: string, kind: ApprovalView['kind']): Promise<ApprovalView> {
    const [pending] = await h.waitForPending(runId, 1);
    if (pending!.kind === kind) return pending!;
    for (;;) {
      const [next] = await h.waitForPending(runId, 1);
      if (next!.kind === kind) return next!;
    }
  }

  async function approvedThenUnknown(target: string, ...attempts: Parameters<typeof scriptAttempts>[1][]) {
    scriptAttempts(target, ...attempts);
    const run = await runOne('restart_service', target);
    const approval = await pendingOf(run.runId, 'call');
    await h.decide(approval.trackingId, { type: 'approve' }, { approver: operator });
    const unknown = await pendingOf(run.runId, 'outcome');
    return { ...run, approval, unknown };
  }

  it('asks who may decide the call, shows what is known, and takes "it happened" with a checked result', async () => {
    const target = `api-${Date.now()}`;
    const { runId, conversation, approval, unknown } = await approvedThenUnknown(target, 'unknown');
    assert.equal(executionsOf(runId).length, 1, 'one attempt, not repeated');
    assert.deepEqual(unknown.args, { target });
    assert.deepEqual(unknown.allowedDecisions, ['respond', 'approve', 'reject']);
    assert.deepEqual(unknown.approvers, approval.approvers);
    assert.equal(unknown.attempt?.attempt, 1);
    assert.equal(unknown.attempt?.progress?.step, `request for ${target} sent`);
    assert.ok(unknown.attempt?.startedAt && unknown.attempt.worker, JSON.stringify(unknown.attempt));
    assert.match(unknown.attempt!.reason, /did not answer after the request was sent/);

    // A role the policy does not name is refused; a result that does not match the schema too.
    const wrongRole = await h.decide(unknown.trackingId, {
      type: 'respond',
      result: { done: target, key: 'k' },
    });
    assert.deepEqual([wrongRole.accepted, wrongRole.code], [false, 'role_not_allowed']);
    const badResult = await h.decide(
      unknown.trackingId,
      { type: 'respond', result: { done: 42 } },
      { approver: operator },
    );
    assert.deepEqual([badResult.accepted, badResult.code], [false, 'invalid_arguments']);

    const reported = { done: target, key: 'seen in the service log' };
    const happened = await h.decide(
      unknown.trackingId,
      { type: 'respond', result: reported, message: 'the log shows the restart' },
      { approver: operator, requestId: 'happened-1' },
    );
    assert.deepEqual([happened.accepted, happened.status], [true, 'responded']);
    // Decided twice: the second is refused, the first stands.
    const twice = await h.decide(unknown.trackingId, { type: 'approve' }, { approver: otherOperator });
    assert.deepEqual([twice.accepted, twice.status], [false, 'responded']);

    const outcome = await h.outcome(runId);
    assert.equal(outcome.status, 'completed');
    const state = await h.state(runId);
    assert.equal(toolMessages(state).get('c1'), JSON.stringify(reported));
    assert.equal(executionsOf(runId).length, 1, 'nothing ran again');
    assert.equal(conversation.requests.length, 2);
    const types = state.events.map((e) => e.type);
    assert.ok(types.includes('tool.unknown'));
    const ran = state.events.find((e) => e.type === 'tool.ran');
    assert.deepEqual((ran?.data as { reportedBy?: string[] }).reportedBy, ['olga']);
    await h.saveHistory('unknown-outcome', runId);
  });

  it('"run it again" makes one more attempt under the same key, with the same rule if that one is unknown too', async () => {
    const target = `db-${Date.now()}`;
    const { runId, unknown } = await approvedThenUnknown(target, 'unknown', 'unknown', 'ok');
    await h.decide(unknown.trackingId, { type: 'approve' }, { approver: operator });
    const second = await pendingOf(runId, 'outcome');
    assert.notEqual(second.trackingId, unknown.trackingId);
    assert.equal(second.attempt?.attempt, 2);
    await h.decide(second.trackingId, { type: 'approve' }, { approver: operator });
    assert.equal((await h.outcome(runId)).status, 'completed');

    const attempts = executionsOf(runId);
    assert.equal(attempts.length, 3, 'one attempt per person saying "run it again"');
    assert.equal(new Set(attempts.map((e) => e.context.idempotencyKey)).size, 1);
    const message = toolMessages(await h.state(runId)).get('c1')!;
    assert.match(message, new RegExp(`"done":"${target}"`));
  });

  it('"it failed" tells the model the call did not complete', async () => {
    const target = `queue-${Date.now()}`;
    const { runId, unknown } = await approvedThenUnknown(target, 'unknown');
    await h.decide(
      unknown.trackingId,
      { type: 'reject', message: 'the service never restarted' },
      { approver: operator },
    );
    assert.equal((await h.outcome(runId)).status, 'completed');
    const message = toolMessages(await h.state(runId)).get('c1')!;
    assert.match(
      message,
      /failed: its outcome was unknown and olga said it did not complete: the service never restarted/,
    );
    assert.equal(executionsOf(runId).length, 1);
  });

  it('no answer by the deadline ends as failed, never as a retry', async () => {
    const target = `pager-${Date.now()}`;
    scriptAttempts(target, 'unknown');
    const { runId } = await runOne('page_oncall', target);
    await pendingOf(runId, 'outcome');
    assert.equal((await h.outcome(runId)).status, 'completed');
    const state = await h.state(runId);
    assert.match(toolMessages(state).get('c1')!, /nobody said what happened before the deadline/);
    assert.equal(state.approvals.find((a) => a.kind === 'outcome')?.status, 'expired');
    assert.equal(executionsOf(runId).length, 1);
  });

  it("a tool that dedupes is attempted again by itself, and a known failure keeps the tool's own attempts", async () => {
    const synced = `cache-${Date.now()}`;
    scriptAttempts(synced, 'unknown');
    const sync = await runOne('sync_cache', synced);
    assert.equal((await h.outcome(sync.runId)).status, 'completed');
    assert.equal(executionsOf(sync.runId).length, 2);
    assert.ok(!(await h.state(sync.runId)).events.some((e) => e.type === 'tool.unknown'));

    const reported = `report-${Date.now()}`;
    scriptAttempts(reported, 'fail', 'fail', 'ok');
    const send = await runOne('send_report', reported);
    assert.equal((await h.outcome(send.runId)).status, 'completed');
    assert.equal(executionsOf(send.runId).length, 2, 'maxAttempts: 2');
    assert.match(
      toolMessages(await h.state(send.runId)).get('c1')!,
      /failed: .*refused the request before acting/,
    );

    const recovered = `report-ok-${Date.now()}`;
    scriptAttempts(recovered, 'fail');
    const retry = await runOne('send_report', recovered);
    assert.equal((await h.outcome(retry.runId)).status, 'completed');
    assert.equal(executionsOf(retry.runId).length, 2);
    assert.match(toolMessages(await h.state(retry.runId)).get('c1')!, new RegExp(recovered));
  });
});
