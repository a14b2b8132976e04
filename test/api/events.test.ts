import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import type { RunEvent } from '../../protocol/index.js';
import { call, calls, say } from '../support/fake-model.js';
import { holdDeploys, tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';
import { pool } from '../faults/support/pool.js';
import { globalId } from '../../api/sse.js';
import { lastChange } from '../../api/history-reads.js';
import { openSse } from './sse-reader.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.close();
});

const transfer = calls(call('transfer', { from: 'ops', to: 'acme', amount: 300 }));
const approve = (trackingId: string) =>
  stack.http('POST', `/api/approvals/${trackingId}/decision`, {
    token: tokens.alice,
    body: { type: 'approve' },
  });

test('a busy run still streams: the decision shows while the approved tool is running', async () => {
  const release = holdDeploys();
  try {
    const runId = await stack.startRun(
      'ops',
      'events: busy run',
      tokens.victor,
      calls(call('deploy', { service: 'api', version: '7' })),
      say('Deployed.'),
    );
    const stream = await openSse(`${stack.url}/api/runs/${runId}/events`, tokens.alice);
    const requested = await stream.until((m) => m.event === 'approval.requested');
    assert.equal((await approve((requested.at(-1)!.data as RunEvent).trackingId!)).status, 200);
    // The deploy is held, so the run stays busy with its activity; the stream waits for the next
    // task only briefly before it reads the log, and the decision arrives now.
    const decided = await stream.until((m) => m.event === 'approval.settled');
    assert.ok(!decided.some((m) => m.event === 'tool.ran'), 'the tool is still running');
    release();
    const rest = await stream.until((m) => m.event === 'run.finished');
    assert.ok(rest.some((m) => m.event === 'tool.ran'));
    stream.close();
  } finally {
    release();
  }
});

test("a run's stream: live events with ids, Last-Event-ID resume, 204 once finished", async () => {
  const runId = await stack.startRun('bank', 'events: run stream', tokens.victor, transfer, say('Sent.'));
  const stream = await openSse(`${stack.url}/api/runs/${runId}/events`, tokens.alice);
  assert.equal(stream.status, 200);
  const requested = await stream.until((m) => m.event === 'approval.requested');
  assert.equal(requested[0]!.event, 'run.started');
  const event = requested.at(-1)!.data as RunEvent;
  assert.equal(requested.at(-1)!.id, String(event.id));
  assert.equal(event.runId, runId);

  assert.equal((await approve(event.trackingId!)).status, 200);
  const rest = await stream.until((m) => m.event === 'run.finished');
  const types = rest.map((m) => m.event);
  assert.ok(types.includes('approval.decided'));
  assert.ok(types.includes('tool.ran'));
  const ids = [...requested, ...rest].map((m) => Number(m.id));
  assert.deepEqual(
    ids,
    [...ids].sort((a, b) => a - b),
  );
  assert.equal(new Set(ids).size, ids.length);
  const end = await stream.next();
  assert.equal(end?.event, 'end');
  stream.close();

  // Resume after the approval request: exactly the later events, once.
  const resumed = await openSse(`${stack.url}/api/runs/${runId}/events`, tokens.alice, String(event.id));
  const again = await resumed.until((m) => m.event === 'run.finished');
  assert.deepEqual(
    again.map((m) => m.id),
    rest.map((m) => m.id),
  );
  resumed.close();

  const done = await openSse(`${stack.url}/api/runs/${runId}/events`, tokens.alice, rest.at(-1)!.id);
  assert.equal(done.status, 204);
  done.close();
});

test('a finished run is read from its result: state, approval and events with no worker up', async () => {
  const runId = await stack.startRun(
    'bank',
    'events: read when closed',
    tokens.victor,
    transfer,
    say('Sent.'),
  );
  const [pending] = await stack.waitForPending(runId);
  assert.equal((await approve(pending!.trackingId)).status, 200);
  assert.equal((await stack.result(runId)).status, 'completed');
  await stack.stopWorker();
  try {
    const run = await stack.http('GET', `/api/runs/${runId}`, { token: tokens.alice });
    assert.equal(run.status, 200);
    assert.equal(run.body.status, 'completed');
    assert.equal(run.body.output, 'Sent.');
    assert.equal(run.body.transcript.at(-1).content, 'Sent.');

    const approval = await stack.http('GET', `/api/approvals/${pending!.trackingId}`, {
      token: tokens.alice,
    });
    assert.equal(approval.status, 200);
    assert.equal(approval.body.status, 'approved');
    assert.ok(approval.body.decisions.some((e: RunEvent) => e.type === 'approval.decided'));

    const stream = await openSse(`${stack.url}/api/runs/${runId}/events`, tokens.alice);
    assert.equal(stream.status, 200);
    const events = await stream.until((m) => m.event === 'run.finished');
    assert.equal(events[0]!.event, 'run.started');
    assert.ok(events.some((m) => m.event === 'tool.ran'));
    assert.equal((await stream.next())?.event, 'end');
    stream.close();
  } finally {
    await stack.startWorker();
  }
});

test('event streams refuse unknown runs and bad resume ids', async () => {
  const missing = await stack.http('GET', '/api/runs/run-nope/events', { token: tokens.alice });
  assert.equal(missing.status, 404);
  const runId = await stack.startRun('bank', 'events: bad id', tokens.victor, say('Hi.'));
  const bad = await stack.http('GET', `/api/runs/${runId}/events`, {
    token: tokens.alice,
    headers: { 'last-event-id': 'yesterday' },
  });
  assert.equal(bad.status, 400);
  const badGlobal = await stack.http('GET', '/api/events', {
    token: tokens.alice,
    headers: { 'last-event-id': `yesterday~${runId}~1` },
  });
  assert.equal(badGlobal.status, 400);
  assert.equal(badGlobal.body.error.code, 'invalid_request');
});

test('the global stream carries every run, and resumes from a Last-Event-ID', async () => {
  const stream = await openSse(`${stack.url}/api/events`, tokens.alice);
  assert.equal(stream.status, 200);
  const runId = await stack.startRun('bank', 'events: global', tokens.victor, transfer, say('Sent.'));
  const seen = await stream.until(
    (m) => m.event === 'approval.requested' && (m.data as RunEvent).runId === runId,
  );
  const requested = seen.at(-1)!;
  assert.match(requested.id, new RegExp(`^\\d+~${runId}~\\d+$`));
  stream.close();

  // Decided while nobody listened; a subscriber resuming from its last id still gets it.
  assert.equal((await approve((requested.data as RunEvent).trackingId!)).status, 200);
  await stack.result(runId);
  const resumed = await openSse(`${stack.url}/api/events`, tokens.alice, requested.id);
  const later = await resumed.until(
    (m) => m.event === 'run.finished' && (m.data as RunEvent).runId === runId,
  );
  const mine = later.filter((m) => (m.data as RunEvent).runId === runId);
  assert.ok(mine.some((m) => m.event === 'approval.decided'));
  assert.ok(!mine.some((m) => m.id === requested.id || m.event === 'run.started'));
  resumed.close();
});

/**
 * A run paused on its approval, a worker restarted with an empty cache (as if every paused run had
 * been evicted), and an inbox stream opened (resuming from `lastEventId` if given): the stream must
 * leave the run out of the worker's cache, then still bring the decision taken next, and none of
 * the events before the subscriber.
 */
async function quietRunStaysUncached(input: string, lastEventId?: (runId: string) => string) {
  const runId = await stack.startRun('bank', input, tokens.victor, transfer, say('Sent.'));
  const [pending] = await stack.waitForPending(runId);
  await stack.stopWorker();
  await stack.startWorker();
  assert.equal(stack.cachedRuns(), 0);
  const stream = await openSse(`${stack.url}/api/events`, tokens.alice, lastEventId?.(runId));
  assert.equal(stream.status, 200);
  // The stack lists every 200 ms: this is fifteen polls, three times the interval at which a quiet
  // run is looked at again.
  await sleep(3_000);
  assert.equal(stack.cachedRuns(), 0, 'the stream had the worker load the paused run');

  assert.equal((await approve(pending!.trackingId)).status, 200);
  const seen = await stream.until((m) => m.event === 'run.finished' && (m.data as RunEvent).runId === runId);
  const mine = seen.filter((m) => (m.data as RunEvent).runId === runId).map((m) => m.event);
  assert.ok(mine.includes('approval.decided'), mine.join(', '));
  assert.ok(!mine.includes('run.started') && !mine.includes('approval.requested'), mine.join(', '));
  stream.close();
}

test('an open inbox stream leaves a paused run out of the worker cache, and still brings its news', () =>
  quietRunStaysUncached('events: quiet run'));

test('a subscriber resuming after a pause leaves quiet runs out of the worker cache', () =>
  // Resuming from a moment after the run last changed: it has nothing new for this subscriber.
  quietRunStaysUncached('events: quiet resume', (runId) => `${Date.now()}~${runId}~1`));

/**
 * A payout that needs two approvals, given one while nobody listens: the run goes on waiting.
 * `lastSeen` is the global id of the run's last event before that, the one a subscriber that left
 * then resumes from.
 */
async function approvedOnceWhileAway(input: string): Promise<{ runId: string; lastSeen: string }> {
  const runId = await stack.startRun(
    'treasury',
    input,
    tokens.victor,
    calls(call('payout', { supplier: 'acme', amount: 900 })),
    say('Paid.'),
  );
  const [pending] = await stack.waitForPending(runId);
  const lastSeen = globalId((await stack.state(runId)).events.at(-1)!);
  assert.equal((await approve(pending!.trackingId)).status, 200);
  return { runId, lastSeen };
}

test('a subscriber resuming gets what a still-waiting run did while it was away', async () => {
  const { runId, lastSeen } = await approvedOnceWhileAway('events: quorum while away');
  const stream = await openSse(`${stack.url}/api/events`, tokens.alice, lastSeen);
  const seen = await stream.until(
    (m) => m.event === 'approval.decided' && (m.data as RunEvent).runId === runId,
  );
  assert.ok(!seen.some((m) => m.event === 'approval.requested' && (m.data as RunEvent).runId === runId));
  stream.close();
  await stack.client.workflow.getHandle(runId).cancel();
});

test('resuming, an event stamped before the resume point but written after it still comes', async () => {
  // The feed emits a run's events a task and a poll after their time, in the order it reads runs:
  // a subscriber may have had another run's later-stamped event before this one reached it.
  const { runId } = await approvedOnceWhileAway('events: stamped before the resume point');
  const writtenAt = await lastChange(stack.client, stack.client.options.namespace, runId);
  const decided = (await stack.state(runId)).events.find((e) => e.type === 'approval.decided')!;
  assert.ok(Date.parse(decided.at) <= writtenAt);
  const stream = await openSse(`${stack.url}/api/events`, tokens.alice, `${writtenAt}~another-run~9`);
  await stream.until((m) => m.event === 'approval.decided' && (m.data as RunEvent).runId === runId);
  stream.close();
  await stack.client.workflow.getHandle(runId).cancel();
});

test('inbox subscribers share one feed: four open streams list the runs no more often than one', async () => {
  const listsWhileOpen = async (subscribers: number) => {
    const streams = await Promise.all(
      Array.from({ length: subscribers }, () => openSse(`${stack.url}/api/events`, tokens.alice)),
    );
    const before = stack.apiCalls('ListWorkflowExecutions');
    // Ten of the stack's 200 ms polls.
    await sleep(2_000);
    const lists = stack.apiCalls('ListWorkflowExecutions') - before;
    for (const stream of streams) stream.close();
    // Let the feed see that nobody listens any more.
    await sleep(500);
    return lists;
  };
  const one = await listsWhileOpen(1);
  const four = await listsWhileOpen(4);
  assert.ok(one >= 5, `one subscriber's feed listed ${one} times in 2 s`);
  assert.ok(four < one * 2, `four subscribers listed ${four} times, one subscriber ${one} times`);
});

test('the feed stops polling once its last subscriber has gone', async () => {
  const stream = await openSse(`${stack.url}/api/events`, tokens.alice);
  const opened = stack.apiCalls('ListWorkflowExecutions');
  while (stack.apiCalls('ListWorkflowExecutions') === opened) await sleep(20);
  stream.close();
  // The poll under way ends; the next finds nobody listening.
  await sleep(1_000);
  const before = stack.apiCalls('ListWorkflowExecutions');
  await sleep(2_000);
  assert.equal(stack.apiCalls('ListWorkflowExecutions') - before, 0, 'lists with nobody listening');
});

test('a subscriber joining an open feed gets what happens from then on, as the first one does', async () => {
  const first = await openSse(`${stack.url}/api/events`, tokens.alice);
  const runId = await stack.startRun(
    'bank',
    'events: second subscriber',
    tokens.victor,
    transfer,
    say('Sent.'),
  );
  const requested = await first.until(
    (m) => m.event === 'approval.requested' && (m.data as RunEvent).runId === runId,
  );
  const second = await openSse(`${stack.url}/api/events`, tokens.alice);
  assert.equal((await approve((requested.at(-1)!.data as RunEvent).trackingId!)).status, 200);
  const finished = (m: { event: string; data: unknown }) =>
    m.event === 'run.finished' && (m.data as RunEvent).runId === runId;
  const [toFirst, toSecond] = await Promise.all([first.until(finished), second.until(finished)]);
  const eventsOf = (seen: typeof toFirst) =>
    seen.filter((m) => (m.data as RunEvent).runId === runId).map((m) => `${m.id} ${m.event}`);
  assert.deepEqual(eventsOf(toSecond), eventsOf(toFirst));
  assert.ok(eventsOf(toSecond).some((e) => e.endsWith('approval.decided')));
  assert.ok(!eventsOf(toSecond).some((e) => e.endsWith('approval.requested')));
  first.close();
  second.close();
});

test('a subscriber resuming while no worker is up gets what it missed once one is', async () => {
  const { runId, lastSeen } = await approvedOnceWhileAway('events: resume without a worker');
  await stack.stopWorker();
  const stream = await openSse(`${stack.url}/api/events`, tokens.alice, lastSeen);
  // Catching up, the stream cannot read the run (a query needs a worker); it tries again.
  await sleep(3_000);
  await stack.startWorker();
  const seen = await stream.until(
    (m) => m.event === 'approval.decided' && (m.data as RunEvent).runId === runId,
  );
  const mine = seen.filter((m) => (m.data as RunEvent).runId === runId).map((m) => m.event);
  assert.deepEqual(mine, ['approval.decided']);
  stream.close();
  await stack.client.workflow.getHandle(runId).cancel();
});

test('the feed follows every waiting run, not only the newest five hundred', async () => {
  const runId = await stack.startRun('bank', 'events: older than 500', tokens.victor, transfer, say('Sent.'));
  const [pending] = await stack.waitForPending(runId);
  // Newer runs of the agent workflow, on a queue no worker polls: they stay running, listed first.
  const newer = await pool(
    Array.from({ length: 520 }, (_, i) => i),
    20,
    (i) =>
      stack.client.workflow.start('agentWorkflow', {
        taskQueue: 'events-no-worker',
        workflowId: `events-newer-${i}-${Date.now()}`,
        args: [],
      }),
  );
  try {
    const stream = await openSse(`${stack.url}/api/events`, tokens.alice);
    // Let the fresh feed take its first look before the decision.
    await sleep(500);
    assert.equal((await approve(pending!.trackingId)).status, 200);
    const seen = await stream.until(
      (m) => m.event === 'approval.decided' && (m.data as RunEvent).runId === runId,
    );
    assert.ok(seen.length > 0);
    stream.close();
    await stack.result(runId);
  } finally {
    await pool(newer, 20, (handle) => handle.terminate('test over'));
  }
});

test('the feed describes a quiet run less and less often', async () => {
  const runId = await stack.startRun('bank', 'events: quiet backoff', tokens.victor, transfer, say('Sent.'));
  await stack.waitForPending(runId);
  // Let a feed left by an earlier test see that nobody listens, so this one starts afresh.
  await sleep(500);
  const { count: running } = await stack.client.workflow.count(
    `WorkflowType = 'agentWorkflow' AND ExecutionStatus = 'Running'`,
  );
  const stream = await openSse(`${stack.url}/api/events`, tokens.alice);
  const before = stack.apiCalls('DescribeWorkflowExecution');
  // Thirty of the stack's 200 ms polls: looked at every five polls, each run would be described six
  // times; waiting twice as long after each quiet look, twice (a run whose list length lags, three).
  await sleep(6_000);
  const describes = stack.apiCalls('DescribeWorkflowExecution') - before;
  stream.close();
  assert.ok(describes > 0, 'quiet runs were never described');
  assert.ok(describes <= running * 3, `${describes} describes of ${running} running runs in 30 polls`);
  await stack.client.workflow.getHandle(runId).cancel();
});
