import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import proto from '@temporalio/proto';
import type { RunEvent } from '../../protocol/index.js';
import { call, calls, say } from '../support/fake-model.js';
import { tokens } from '../support/api-agents.js';
import { startHoldingProxy, type HoldingProxy } from '../support/holding-proxy.js';
import { startStack, type Stack } from '../support/stack.js';
import { openSse } from './sse-reader.js';

// A stack of its own: the inbox feed must start with this file's first subscriber.
let stack: Stack;
let proxy: HoldingProxy;
before(async () => {
  stack = await startStack();
  proxy = await startHoldingProxy(stack.temporalAddress);
  await stack.stopWorker();
  await stack.startWorker({ address: proxy.address });
});
after(async () => {
  proxy?.release();
  await stack?.close();
  await proxy?.close();
});

const STARTED = proto.temporal.api.enums.v1.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_STARTED;

test('a workflow task in flight when the inbox feed starts: its events still reach the stream', async () => {
  const transfer = calls(call('transfer', { from: 'ops', to: 'acme', amount: 300 }));
  const runId = await stack.startRun(
    'bank',
    'feed start: task in flight',
    tokens.victor,
    transfer,
    say('Sent.'),
  );
  const [pending] = await stack.waitForPending(runId);
  const handle = stack.client.workflow.getHandle(runId);

  // The worker takes the decision's workflow task, and its answer is held on the way back.
  proxy.hold();
  const decided = stack.http('POST', `/api/approvals/${pending!.trackingId}/decision`, {
    token: tokens.alice,
    body: { type: 'approve' },
    // The revision it was shown, given here: reading it now would wait on the held worker.
    headers: { 'if-match': `"${pending!.revision}"` },
  });
  while ((await handle.describe()).raw.pendingWorkflowTask?.state !== STARTED) await sleep(20);

  // The first subscriber starts the feed while that task is in flight; its first poll sees the run
  // as it was before the decision.
  const lists = stack.apiCalls('ListWorkflowExecutions');
  const stream = await openSse(`${stack.url}/api/events`, tokens.alice);
  assert.equal(stream.status, 200);
  while (stack.apiCalls('ListWorkflowExecutions') === lists) await sleep(20);
  await sleep(300);
  proxy.release();

  const seen = await stream.until((m) => m.event === 'run.finished' && (m.data as RunEvent).runId === runId);
  stream.close();
  const mine = seen.filter((m) => (m.data as RunEvent).runId === runId).map((m) => m.event);
  // Stamped when the task started, before the feed did, and written after: it must still come.
  assert.ok(mine.includes('approval.decided'), mine.join(', '));
  // Each event once, however the feed came to read the run.
  const ids = seen.filter((m) => (m.data as RunEvent).runId === runId).map((m) => m.id);
  assert.equal(new Set(ids).size, ids.length, mine.join(', '));
  assert.ok([200, 202].includes((await decided).status));
});
