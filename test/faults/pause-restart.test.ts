import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import type { ChatCompletionRequest } from '../../model-server/chat-completions-server.js';
import { trackingIdFor, type RunEvent, type RunStatus } from '../../protocol/index.js';
import { readExecutions } from './support/executions.js';
import { appliedText, executionsFile, FAULT_AGENT, FAULT_TOOL } from './support/fault-agents.js';
import { decide } from './support/fault-runs.js';
import type { PlannedRun } from './support/invariants.js';
import { restartUntilUp } from './support/chaos.js';
import type { Rest } from './support/rest.js';
import { startScriptedStack } from './support/scripted-stack.js';

interface RunDetail {
  status: RunStatus;
  output?: string;
  events: RunEvent[];
}

test('a paused run survives a worker and Temporal server restart and resumes', async (t) => {
  // The model proposes the change the input names and, once the tool has answered, finishes,
  // quoting the last thing it was told.
  const requests: ChatCompletionRequest[] = [];
  const {
    stack,
    dataDir,
    as,
    detail: read,
  } = await startScriptedStack(t, {
    name: 'pause-restart',
    reviewers: 1,
    answer: (request) => {
      requests.push(request);
      const tool = request.messages.find((m) => m.role === 'tool');
      if (tool) return { content: `done: ${tool.content}; last said: ${request.messages.at(-1)?.content}` };
      const ref = /ref=(\S+)/.exec(request.messages.find((m) => m.role === 'user')?.content ?? '')?.[1];
      return {
        content: null,
        tool_calls: [{ id: 'c1', function: { name: FAULT_TOOL, arguments: { ref: ref ?? '?', amount: 7 } } }],
      };
    },
  });
  const [requester, reviewer] = as as [Rest, Rest];
  const detail = (runId: string, accept: (d: RunDetail) => boolean) => read<RunDetail>(runId, accept);

  // One run, waiting for its approval, is paused through the API.
  const ref = `p-${randomUUID().slice(0, 8)}`;
  const input = `ref=${ref} amount=7`;
  const started = await requester.send<{ runId: string }>('POST', '/api/runs', { agent: FAULT_AGENT, input });
  assert.equal(started.status, 201, JSON.stringify(started.body));
  const { runId } = started.body;
  const trackingId = trackingIdFor(runId, 1);
  await detail(runId, (d) => d.status === 'waiting');
  const pause = await requester.send('POST', `/api/runs/${runId}/pause`, { message: 'hold while we check' });
  assert.equal(pause.status, 202, JSON.stringify(pause.body));
  await detail(runId, (d) => d.status === 'paused');

  // The worker and the Temporal server die together, and come back on the same data file.
  await stack.kill('worker');
  await stack.kill('temporal');
  await restartUntilUp(stack, 'temporal');
  await restartUntilUp(stack, 'worker');

  const after = await detail(runId, () => true);
  assert.equal(after.status, 'paused', 'still paused after the restart');
  const pausedEvents = after.events.filter((e) => e.type === 'run.paused');
  assert.deepEqual(
    pausedEvents.map((e) => [e.actor, e.channel, e.message]),
    [['requester', 'api', 'hold while we check']],
  );

  // Its approval stays decidable, but an approved call does not start while the run is paused.
  const run: PlannedRun = {
    runId,
    trackingId,
    ref,
    amount: 7,
    choice: 'approve',
    editedAmount: 8,
    acknowledged: false,
  };
  await decide(reviewer, run, 0);
  assert.ok(run.acknowledged, 'the approval was taken');
  const approved = await detail(runId, (d) =>
    d.events.some((e) => e.type === 'approval.settled' && e.status === 'approved'),
  );
  assert.equal(approved.status, 'paused');
  assert.ok(!approved.events.some((e) => e.type === 'tool.ran'), 'no tool runs while paused');
  // The query that showed the approval waited for the workflow task that took it: had that task
  // started the tool, the run's history would already hold it.
  const connection = await Connection.connect({ address: stack.temporalAddress });
  t.after(() => connection.close());
  const temporal = new Client({ connection, namespace: 'default' });
  const scheduled = async (activity: string) =>
    ((await temporal.workflow.getHandle(runId).fetchHistory()).events ?? []).filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activity,
    ).length;
  assert.equal(await scheduled('runTool'), 0, 'no tool is started while paused');
  assert.equal(await scheduled('callModel'), 1);
  assert.deepEqual(readExecutions(executionsFile(dataDir)), [], 'no tool runs while paused');
  assert.equal(requests.length, 1, 'the model is asked nothing while paused');

  const correction = 'Apply it to the staging ledger only.';
  const resume = await requester.send('POST', `/api/runs/${runId}/resume`, { message: correction });
  assert.equal(resume.status, 202, JSON.stringify(resume.body));
  const done = await detail(runId, (d) => d.status === 'completed' || d.status === 'failed');
  assert.equal(done.status, 'completed', JSON.stringify(done.events.at(-1)));

  // The call ran once, after the resume; the model read the tool's answer, then the correction.
  const executions = readExecutions(executionsFile(dataDir));
  assert.deepEqual(
    executions.map((e) => [e.kind, e.runId, e.args]),
    [['applied', runId, { ref, amount: 7 }]],
  );
  assert.equal(requests.length, 2);
  assert.deepEqual([await scheduled('runTool'), await scheduled('callModel')], [1, 2]);
  const next = requests[1]!;
  assert.deepEqual(
    next.messages.slice(-2).map((m) => [m.role, m.content]),
    [
      ['tool', appliedText(ref, 7)],
      ['user', correction],
    ],
  );
  assert.equal(done.output, `done: ${appliedText(ref, 7)}; last said: ${correction}`);
  assert.deepEqual(
    done.events
      .map((e) => e.type)
      .filter((type) =>
        ['run.paused', 'approval.settled', 'run.resumed', 'tool.ran', 'run.finished'].includes(type),
      ),
    ['run.paused', 'approval.settled', 'run.resumed', 'tool.ran', 'run.finished'],
  );
});
