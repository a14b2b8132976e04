import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import proto from '@temporalio/proto';
import { SEARCH_ATTRIBUTES, type RunEvent } from '../../protocol/index.js';
import { call, calls, say, type ScriptStep } from '../support/fake-model.js';
import { holdDeploys, tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';
import { pool } from '../faults/support/pool.js';
import { globalId, parseGlobalId } from '../../api/live/sse.js';
import { compareKeys } from '../../api/live/event-order.js';
import { VISIBILITY_LAG_MS } from '../../api/live/event-feed.js';
import { bundleUnstampedWorkflows } from '../support/worker.js';
import { openSse, type SseMessage, type SseStream } from './sse-reader.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.close();
});

const RUNNING = proto.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;

/** Every run this file starts through the API, so a test can wait for all of them to be still. */
const started = new Set<string>();
async function startRun(agent: string, input: string, ...script: ScriptStep[]): Promise<string> {
  const runId = await stack.startRun(agent, input, tokens.victor, ...script);
  started.add(runId);
  return runId;
}

/**
 * Waits until every run this file started has closed or waits with nothing in flight (no workflow
 * task, no activity such as the notification sent beside an approval). A worker stopped before
 * that leaves the run's next workflow task on its sticky queue, which the server hands to the next
 * worker only after the sticky schedule-to-start timeout: that worker would then load the run into
 * its cache whatever the stream does. Read by describing each run (exact), not from a list.
 */
async function settled(): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (const runId of started) {
    for (;;) {
      const { raw } = await stack.client.workflow.getHandle(runId).describe();
      if (raw.workflowExecutionInfo?.status !== RUNNING) {
        started.delete(runId);
        break;
      }
      if (!raw.pendingWorkflowTask && (raw.pendingActivities ?? []).length === 0) break;
      if (Date.now() > deadline) throw new Error(`run ${runId} still busy after 60 s`);
      await sleep(50);
    }
  }
}

/** Cancels a run this file left waiting, and waits for it to close. */
async function cancelled(runId: string): Promise<void> {
  const handle = stack.client.workflow.getHandle(runId);
  await handle.cancel();
  await handle.result().catch(() => undefined);
}

/** Waits until the API has made `count` more calls of `method` than `from`; fails after a minute. */
async function apiCallsReach(method: string, from: number, count: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (stack.apiCalls(method) - from < count) {
    if (Date.now() > deadline) {
      throw new Error(
        `the API made ${stack.apiCalls(method) - from} ${method} calls in a minute, not ${count}`,
      );
    }
    await sleep(20);
  }
}

/**
 * Waits until the API has made no list call for two seconds (ten of the stack's 200 ms polls, and
 * longer than a poll that waits on an unreadable run): a feed left by an earlier subscriber has
 * seen that nobody listens. Fails after half a minute of lists.
 */
async function feedStopped(): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const before = stack.apiCalls('ListWorkflowExecutions');
    await sleep(2_000);
    if (stack.apiCalls('ListWorkflowExecutions') === before) return;
    if (Date.now() > deadline) throw new Error('the feed went on listing runs with nobody listening');
  }
}

/** Opens a stream for `fn` and closes it afterwards, also when `fn` fails. */
async function withStream<T>(
  path: string,
  lastEventId: string | undefined,
  fn: (stream: SseStream) => Promise<T>,
): Promise<T> {
  const stream = await openSse(`${stack.url}${path}`, tokens.alice, lastEventId);
  try {
    return await fn(stream);
  } finally {
    stream.close();
  }
}

const transfer = calls(call('transfer', { from: 'ops', to: 'acme', amount: 300 }));
const approve = (trackingId: string) =>
  stack.http('POST', `/api/approvals/${trackingId}/decision`, {
    token: tokens.alice,
    body: { type: 'approve' },
  });
/** Taken (200), or accepted and not taken within the API's wait (202, a loaded machine). */
const approved = async (trackingId: string) => {
  const { status, text } = await approve(trackingId);
  assert.ok(status === 200 || status === 202, `the decision answered ${status}: ${text}`);
};

const ofRun = (runId: string, event: string) => (m: { event: string; data: unknown }) =>
  m.event === event && (m.data as RunEvent).runId === runId;

test('a busy run still streams: the decision shows while the approved tool is running', async () => {
  const release = holdDeploys();
  try {
    const runId = await startRun(
      'ops',
      'events: busy run',
      calls(call('deploy', { service: 'api', version: '7' })),
      say('Deployed.'),
    );
    await withStream(`/api/runs/${runId}/events`, undefined, async (stream) => {
      const requested = await stream.until((m) => m.event === 'approval.requested');
      await approved((requested.at(-1)!.data as RunEvent).trackingId!);
      // The deploy is held, so the run stays busy with its activity; the stream waits for the next
      // task only briefly before it reads the log, and the decision arrives now.
      const decided = await stream.until((m) => m.event === 'approval.settled');
      assert.ok(!decided.some((m) => m.event === 'tool.ran'), 'the tool is still running');
      release();
      const rest = await stream.until((m) => m.event === 'run.finished');
      assert.ok(rest.some((m) => m.event === 'tool.ran'));
    });
  } finally {
    release();
  }
});

test("a run's stream: live events with ids, Last-Event-ID resume, 204 once finished", async () => {
  const runId = await startRun('bank', 'events: run stream', transfer, say('Sent.'));
  const path = `/api/runs/${runId}/events`;
  const { event, rest } = await withStream(path, undefined, async (stream) => {
    assert.equal(stream.status, 200);
    const requested = await stream.until((m) => m.event === 'approval.requested');
    assert.equal(requested[0]!.event, 'run.started');
    const event = requested.at(-1)!.data as RunEvent;
    assert.equal(requested.at(-1)!.id, String(event.id));
    assert.equal(event.runId, runId);

    await approved(event.trackingId!);
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
    return { event, rest };
  });

  // Resume after the approval request: exactly the later events, once.
  await withStream(path, String(event.id), async (resumed) => {
    const again = await resumed.until((m) => m.event === 'run.finished');
    assert.deepEqual(
      again.map((m) => m.id),
      rest.map((m) => m.id),
    );
  });

  await withStream(path, rest.at(-1)!.id, async (done) => assert.equal(done.status, 204));
});

test('a finished run is read from its result: state, approval and events with no worker up', async () => {
  const runId = await startRun('bank', 'events: read when closed', transfer, say('Sent.'));
  const [pending] = await stack.waitForPending(runId);
  await approved(pending!.trackingId);
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

    await withStream(`/api/runs/${runId}/events`, undefined, async (stream) => {
      assert.equal(stream.status, 200);
      const events = await stream.until((m) => m.event === 'run.finished');
      assert.equal(events[0]!.event, 'run.started');
      assert.ok(events.some((m) => m.event === 'tool.ran'));
      assert.equal((await stream.next())?.event, 'end');
    });
  } finally {
    await stack.startWorker();
  }
});

test('event streams refuse unknown runs and bad resume ids', async () => {
  const missing = await stack.http('GET', '/api/runs/run-nope/events', { token: tokens.alice });
  assert.equal(missing.status, 404);
  const runId = await startRun('bank', 'events: bad id', say('Hi.'));
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
  await stack.result(runId);
});

test('the global stream carries every run, and resumes from a Last-Event-ID', async () => {
  const { runId, requested } = await withStream('/api/events', undefined, async (stream) => {
    assert.equal(stream.status, 200);
    const runId = await startRun('bank', 'events: global', transfer, say('Sent.'));
    const seen = await stream.until(ofRun(runId, 'approval.requested'));
    const requested = seen.at(-1)!;
    assert.match(requested.id, new RegExp(`^\\d+~${runId}~\\d+$`));
    return { runId, requested };
  });

  // Decided while nobody listened; a subscriber resuming from its last id still gets it.
  await approved((requested.data as RunEvent).trackingId!);
  await stack.result(runId);
  await withStream('/api/events', requested.id, async (resumed) => {
    const later = await resumed.until(ofRun(runId, 'run.finished'));
    const mine = later.filter((m) => (m.data as RunEvent).runId === runId);
    assert.ok(mine.some((m) => m.event === 'approval.decided'));
    assert.ok(!mine.some((m) => m.id === requested.id || m.event === 'run.started'));
  });
});

/**
 * Waits until `runId` has been in none of the API's list answers for ten lists (the run's change
 * time is older than what the feed lists); fails after a minute. Returns how many it was in.
 */
async function leftTheList(runId: string): Promise<number> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const listed = stack.apiListed(runId);
    await apiCallsReach('ListWorkflowExecutions', stack.apiCalls('ListWorkflowExecutions'), 10);
    if (stack.apiListed(runId) === listed) return listed;
    if (Date.now() > deadline) throw new Error(`run ${runId} was still listed after a minute`);
  }
}

/**
 * A run paused on its approval, a worker restarted with an empty cache (as if every paused run had
 * been evicted), and an inbox stream opened (resuming from `lastEventId` if given): the feed must
 * stop listing the quiet run once its change is old, never describe or read it, leave it out of the
 * worker's cache, then still bring the decision taken next, and none of the events before the
 * subscriber.
 */
async function quietRunStaysUncached(input: string, lastEventId?: (runId: string) => string) {
  const runId = await startRun('bank', input, transfer, say('Sent.'));
  const [pending] = await stack.waitForPending(runId);
  // Quiet in the list too: a listing that catches up after the feed starts may be news from just
  // before it, which the feed reads.
  await stack.listUntil('/api/approvals', tokens.alice, (body) =>
    body.approvals.some((a: { trackingId: string }) => a.trackingId === pending!.trackingId),
  );
  // Nothing of this file's runs left in flight: only a read could load a run into the new cache.
  await settled();
  // Quiet for longer than a feed that starts tells its first subscribers of (the lists' lag).
  const { searchAttributes } = await stack.client.workflow.getHandle(runId).describe();
  const changedAt = searchAttributes[SEARCH_ATTRIBUTES.changedAt.name]![0] as Date;
  await sleep(Math.max(0, changedAt.getTime() + VISIBILITY_LAG_MS + 500 - Date.now()));
  await stack.stopWorker();
  await stack.startWorker();
  assert.equal(stack.cachedRuns(), 0);
  const describes = stack.apiCalls('DescribeWorkflowExecution');
  const queries = stack.apiCalls('QueryWorkflow');
  await withStream('/api/events', lastEventId?.(runId), async (stream) => {
    assert.equal(stream.status, 200);
    const listed = await leftTheList(runId);
    // Twenty polls more (the stack lists every 200 ms), in which a feed that lists every live run
    // would list it twenty times.
    await apiCallsReach('ListWorkflowExecutions', stack.apiCalls('ListWorkflowExecutions'), 20);
    assert.equal(stack.apiListed(runId), listed, 'the feed listed a quiet run');
    assert.equal(stack.apiCalls('DescribeWorkflowExecution') - describes, 0, 'the feed described a run');
    assert.equal(stack.apiCalls('QueryWorkflow') - queries, 0, 'the stream read a quiet run');
    assert.equal(stack.cachedRuns(), 0, 'the stream had the worker load the paused run');

    await approved(pending!.trackingId);
    const seen = await stream.until(ofRun(runId, 'run.finished'));
    const mine = seen.filter((m) => (m.data as RunEvent).runId === runId).map((m) => m.event);
    assert.ok(mine.includes('approval.decided'), mine.join(', '));
    assert.ok(!mine.includes('approval.requested'), mine.join(', '));
  });
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
  const runId = await startRun(
    'treasury',
    input,
    calls(call('payout', { supplier: 'acme', amount: 900 })),
    say('Paid.'),
  );
  const [pending] = await stack.waitForPending(runId);
  const lastSeen = globalId((await stack.state(runId)).events.at(-1)!);
  await approved(pending!.trackingId);
  return { runId, lastSeen };
}

test('a subscriber resuming gets what a still-waiting run did while it was away', async () => {
  const { runId, lastSeen } = await approvedOnceWhileAway('events: quorum while away');
  try {
    await withStream('/api/events', lastSeen, async (stream) => {
      const seen = await stream.until(ofRun(runId, 'approval.decided'));
      assert.ok(!seen.some(ofRun(runId, 'approval.requested')));
    });
  } finally {
    await cancelled(runId);
  }
});

test('a subscriber resuming from any event of the stream gets exactly the events after it', async () => {
  // Three runs asking, decided and finishing at once, their steps interleaved, one subscriber
  // throughout.
  const runIds = new Set<string>();
  const ours = (m: SseMessage) => runIds.has((m.data as RunEvent).runId);
  const seen = await withStream('/api/events', undefined, async (stream) => {
    for (const i of [1, 2, 3])
      runIds.add(await startRun('bank', `events: exact ${i}`, transfer, say('Sent.')));
    const pending = await Promise.all([...runIds].map((runId) => stack.waitForPending(runId)));
    await Promise.all(pending.map(([approval]) => approved(approval!.trackingId)));
    let finished = 0;
    return stream.until((m) => ours(m) && m.event === 'run.finished' && ++finished === runIds.size);
  });
  const mine = seen.filter(ours);
  // The stream's order: time, then run, then id, as the ids spell it.
  const keys = mine.map((m) => parseGlobalId(m.id)!);
  for (let i = 1; i < keys.length; i++)
    assert.ok(compareKeys(keys[i - 1]!, keys[i]!) < 0, `${mine[i - 1]!.id} came before ${mine[i]!.id}`);

  const last = mine.at(-1)!;
  for (const cut of [0, 3, Math.floor(mine.length / 2), mine.length - 2]) {
    const resumed = await withStream('/api/events', mine[cut]!.id, (stream) =>
      stream.until((m) => m.id === last.id),
    );
    assert.deepEqual(
      resumed.filter(ours).map((m) => m.id),
      mine.slice(cut + 1).map((m) => m.id),
      `resumed after ${mine[cut]!.id}`,
    );
  }
});

test('inbox subscribers share one feed: four open streams list the runs no more often than one', async () => {
  /**
   * The lists made in two seconds (ten of the stack's polls) with `subscribers` streams open, after
   * the feed of the streams before has stopped.
   */
  const listsWhileOpen = async (subscribers: number) => {
    await feedStopped();
    const streams = await Promise.all(
      Array.from({ length: subscribers }, () => openSse(`${stack.url}/api/events`, tokens.alice)),
    );
    try {
      const before = stack.apiCalls('ListWorkflowExecutions');
      await sleep(2_000);
      return stack.apiCalls('ListWorkflowExecutions') - before;
    } finally {
      for (const stream of streams) stream.close();
    }
  };
  // One, four, four, one: a machine that gets slower or faster meanwhile weighs on both alike.
  // Four feeds of their own would list four times as often as one.
  const one = [await listsWhileOpen(1)];
  const four = [await listsWhileOpen(4), await listsWhileOpen(4)];
  one.push(await listsWhileOpen(1));
  const sum = (counts: number[]) => counts.reduce((a, b) => a + b, 0);
  assert.ok(sum(one) > 0, 'one subscriber had the runs listed');
  assert.ok(
    sum(four) < sum(one) * 2,
    `four subscribers listed ${four.join('+')} times, one ${one.join('+')}`,
  );
});

test('the feed stops polling once its last subscriber has gone', async () => {
  await withStream('/api/events', undefined, async () => {
    const opened = stack.apiCalls('ListWorkflowExecutions');
    await apiCallsReach('ListWorkflowExecutions', opened, 2);
  });
  // The poll under way ends; the next finds nobody listening. A feed that went on would list
  // every 200 ms.
  await feedStopped();
});

test('a subscriber joining an open feed is told what it found just before, then what happens, as the first one is', async () => {
  await withStream('/api/events', undefined, async (first) => {
    const runId = await startRun('bank', 'events: second subscriber', transfer, say('Sent.'));
    const requested = await first.until(ofRun(runId, 'approval.requested'));
    await withStream('/api/events', undefined, async (second) => {
      // Found before it subscribed, and perhaps not in the list it reads next: told again.
      const replayed = await second.until(ofRun(runId, 'approval.requested'));
      assert.equal(replayed.at(-1)!.id, requested.at(-1)!.id);
      await approved((requested.at(-1)!.data as RunEvent).trackingId!);
      const finished = ofRun(runId, 'run.finished');
      const [toFirst, toSecond] = await Promise.all([first.until(finished), second.until(finished)]);
      const eventsOf = (seen: typeof toFirst) =>
        seen.filter((m) => (m.data as RunEvent).runId === runId).map((m) => `${m.id} ${m.event}`);
      assert.deepEqual(eventsOf(toSecond), eventsOf(toFirst));
      assert.ok(eventsOf(toSecond).some((e) => e.endsWith('approval.decided')));
    });
  });
});

test('a subscriber resuming while no worker is up gets what it missed once one is', async () => {
  const { runId, lastSeen } = await approvedOnceWhileAway('events: resume without a worker');
  try {
    await settled();
    await stack.stopWorker();
    let up = false;
    try {
      await withStream('/api/events', lastSeen, async (stream) => {
        // Catching up, the stream cannot read the run (a query needs a worker); it tries again.
        const queries = stack.apiCalls('QueryWorkflow');
        await apiCallsReach('QueryWorkflow', queries, 2);
        await stack.startWorker();
        up = true;
        const seen = await stream.until(ofRun(runId, 'approval.decided'));
        const mine = seen.filter((m) => (m.data as RunEvent).runId === runId).map((m) => m.event);
        assert.deepEqual(mine, ['approval.decided']);
      });
    } finally {
      if (!up) await stack.startWorker();
    }
  } finally {
    await cancelled(runId);
  }
});

test('the feed follows every waiting run, not only the newest five hundred', async () => {
  const runId = await startRun('bank', 'events: older than 500', transfer, say('Sent.'));
  const [pending] = await stack.waitForPending(runId);
  // Newer runs of the agent workflow, on a queue no worker polls: they stay running, listed first
  // (some a little late: the list lags), and no query about them is ever answered.
  const prefix = `events-newer-${Date.now()}-`;
  const newer = await pool(
    Array.from({ length: 520 }, (_, i) => i),
    20,
    (i) =>
      stack.client.workflow.start('agentWorkflow', {
        taskQueue: 'events-no-worker',
        workflowId: `${prefix}${i}`,
        args: [],
      }),
  );
  try {
    await withStream('/api/events', undefined, async (stream) => {
      // Let the fresh feed take its first look before the decision.
      const lists = stack.apiCalls('ListWorkflowExecutions');
      await apiCallsReach('ListWorkflowExecutions', lists, 2);
      await approved(pending!.trackingId);
      await stream.until(ofRun(runId, 'approval.decided'));
    });
    await stack.result(runId);
  } finally {
    await pool(newer, 20, (handle) => handle.terminate('test over'));
    // Gone from the list of running runs before the next test counts them.
    const query = `WorkflowId STARTS_WITH '${prefix}' AND ExecutionStatus = 'Running'`;
    const deadline = Date.now() + 60_000;
    while ((await stack.client.workflow.count(query)).count > 0 && Date.now() < deadline) await sleep(100);
  }
});

test('a run that stamps no change time, as runs started before runs did, is still followed', async () => {
  await settled();
  await stack.stopWorker();
  await stack.startWorker({ workflowBundle: await bundleUnstampedWorkflows() });
  try {
    const runId = await startRun('bank', 'events: unstamped', transfer, say('Sent.'));
    const [pending] = await stack.waitForPending(runId);
    const { raw } = await stack.client.workflow.getHandle(runId).describe();
    const fields = raw.workflowExecutionInfo?.searchAttributes?.indexedFields ?? {};
    assert.ok(SEARCH_ATTRIBUTES.status.name in fields, 'the run publishes its status');
    assert.ok(!(SEARCH_ATTRIBUTES.changedAt.name in fields), 'the run stamps no change time');
    const lastSeen = globalId((await stack.state(runId)).events.at(-1)!);
    await withStream('/api/events', undefined, async (stream) => {
      // The feed's first look takes the run as it is.
      await apiCallsReach('ListWorkflowExecutions', stack.apiCalls('ListWorkflowExecutions'), 2);
      await approved(pending!.trackingId);
      const seen = await stream.until(ofRun(runId, 'run.finished'));
      const mine = seen.filter((m) => (m.data as RunEvent).runId === runId).map((m) => m.event);
      assert.ok(mine.includes('approval.decided'), mine.join(', '));
    });
    // Resuming from before the decision, it is caught up on too.
    await withStream('/api/events', lastSeen, async (stream) => {
      const seen = await stream.until(ofRun(runId, 'run.finished'));
      const mine = seen.filter((m) => (m.data as RunEvent).runId === runId).map((m) => m.event);
      assert.ok(mine.includes('approval.decided'), mine.join(', '));
      assert.ok(!mine.includes('approval.requested'), mine.join(', '));
    });
  } finally {
    await stack.stopWorker();
    await stack.startWorker();
  }
});
