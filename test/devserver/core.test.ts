import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setup, uid, type Harness } from './harness.js';
import { AgentKey, PendingKey, ToolsKey, finishSignal, stateQuery } from './workflows.js';

let h: Harness;
let taskQueue: string;

before(async () => {
  h = await setup();
  ({ taskQueue } = await h.worker());
});
after(async () => h.teardown(), { timeout: 90_000 } as never);

describe('devserver core', { timeout: 60_000 }, () => {
  it('answers GetSystemInfo and DescribeNamespace', async () => {
    const info = await h.connection.workflowService.getSystemInfo({});
    assert.ok(info.capabilities, 'capabilities present');
    assert.equal(info.capabilities?.upsertMemo, true);
    const ns = await h.connection.workflowService.describeNamespace({ namespace: h.namespace });
    assert.equal(ns.namespaceInfo?.name, h.namespace);
    assert.ok(ns.namespaceInfo?.id);
  });

  it('runs an activity, a timer, a signal, queries and upserts, and lists by a custom attribute', async () => {
    const handle = h.track(
      await h.client.workflow.start('tour', { taskQueue, workflowId: uid('tour'), args: ['ada'] }),
    );
    // Wait until the workflow is parked on its signal, through the query API.
    for (let i = 0; i < 200 && (await handle.query(stateQuery)) !== 'waiting'; i++) await sleep(25);
    assert.equal(await handle.query(stateQuery), 'waiting');

    const desc = await handle.describe();
    assert.equal(desc.status.name, 'RUNNING');
    assert.deepEqual(desc.memo, { pending: { count: 1 } });
    assert.equal(desc.typedSearchAttributes.get(PendingKey), 1);
    assert.equal(desc.typedSearchAttributes.get(AgentKey), 'tour-agent');
    assert.deepEqual(desc.typedSearchAttributes.get(ToolsKey), ['send_email', 'transfer']);

    const listed: string[] = [];
    for await (const w of h.client.workflow.list({
      query: `CountersignPending > 0 AND CountersignAgent = 'tour-agent' AND WorkflowId = '${handle.workflowId}'`,
    })) {
      listed.push(w.workflowId);
    }
    assert.deepEqual(listed, [handle.workflowId]);

    await handle.signal(finishSignal, 'approved');
    assert.equal(await handle.result(), 'hello ada/approved');
    // A closed workflow still answers queries (the worker replays it).
    assert.equal(await handle.query(stateQuery), 'done');
    const closed = await handle.describe();
    assert.equal(closed.status.name, 'COMPLETED');
    assert.equal(closed.memo?.pending, undefined, 'memo key removed by upsert of null');
    assert.equal(closed.typedSearchAttributes.get(PendingKey), 0);

    const { events } = await handle.fetchHistory();
    const types = events!.map((e) => e.eventType);
    assert.ok(types.includes(10), 'ActivityTaskScheduled');
    assert.ok(types.includes(17) && types.includes(18), 'TimerStarted and TimerFired');
    assert.ok(types.includes(26), 'WorkflowExecutionSignaled');
    assert.ok(types.includes(40), 'UpsertWorkflowSearchAttributes');
    assert.ok(types.includes(46), 'WorkflowPropertiesModified');
    assert.equal(types[types.length - 1], 2, 'ends WorkflowExecutionCompleted');
    events!.forEach((e, i) => assert.equal(Number(e.eventId), i + 1, 'event ids are dense'));
  });

  it('delivers a query with a workflow task that is scheduled but not started', async () => {
    const queue = uid('late-worker');
    const handle = h.track(
      await h.client.workflow.start('waitForFinish', { taskQueue: queue, workflowId: uid('late') }),
    );
    const answer = handle.query(stateQuery);
    await sleep(200);
    await h.worker({ taskQueue: queue });
    assert.equal(await answer, 'waiting');
    await handle.signal(finishSignal, 'x');
    assert.equal(await handle.result(), 'x');
  });

  it('answers several queries sent at once to one idle run', async () => {
    const handle = h.track(
      await h.client.workflow.start('waitForFinish', { taskQueue, workflowId: uid('concurrent-q') }),
    );
    assert.equal(await handle.query(stateQuery), 'waiting');
    for (let round = 0; round < 2; round++) {
      const answers = await Promise.all([1, 2, 3, 4].map(() => handle.query(stateQuery)));
      assert.deepEqual(answers, ['waiting', 'waiting', 'waiting', 'waiting']);
    }
    await handle.signal(finishSignal, 'done');
    assert.equal(await handle.result(), 'done');
  });

  it('answers queries for a run the worker has cached and for one it has evicted', async () => {
    // A cache of one: starting the second run evicts the first from the worker's memory.
    const { taskQueue: queue } = await h.worker({ taskQueue: uid('cache-of-one'), maxCachedWorkflows: 1 });
    const first = h.track(
      await h.client.workflow.start('waitForFinish', { taskQueue: queue, workflowId: uid('evicted') }),
    );
    assert.equal(await first.query(stateQuery), 'waiting');
    const second = h.track(
      await h.client.workflow.start('waitForFinish', { taskQueue: queue, workflowId: uid('cached') }),
    );
    assert.equal(await second.query(stateQuery), 'waiting');
    assert.equal(await first.query(stateQuery), 'waiting');
    assert.equal(await second.query(stateQuery), 'waiting');
    await first.signal(finishSignal, 'one');
    await second.signal(finishSignal, 'two');
    assert.deepEqual([await first.result(), await second.result()], ['one', 'two']);
  });

  it('reports a failing query handler as a query error', async () => {
    const handle = h.track(
      await h.client.workflow.start('waitForFinish', { taskQueue, workflowId: uid('qfail') }),
    );
    await assert.rejects(handle.query('failing'), /query handler refused/);
    await assert.rejects(handle.query('no-such-query'), /no-such-query/);
    await handle.signal(finishSignal, 'done');
    await handle.result();
  });

  it('reads history newest first, a page at a time', async () => {
    const handle = h.track(
      await h.client.workflow.start('waitForFinish', { taskQueue, workflowId: uid('reverse') }),
    );
    assert.equal(await handle.query(stateQuery), 'waiting');
    const forward = (await handle.fetchHistory()).events!.map((e) => Number(e.eventId));
    const svc = h.connection.workflowService;
    const execution = { workflowId: handle.workflowId };
    const last = await svc.getWorkflowExecutionHistoryReverse({
      namespace: h.namespace,
      execution,
      maximumPageSize: 1,
    });
    assert.deepEqual(
      last.history!.events!.map((e) => Number(e.eventId)),
      [forward.at(-1)],
    );
    const ids: number[] = [];
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await svc.getWorkflowExecutionHistoryReverse({
        namespace: h.namespace,
        execution,
        maximumPageSize: 2,
        nextPageToken,
      });
      ids.push(...page.history!.events!.map((e) => Number(e.eventId)));
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
    assert.deepEqual(ids, [...forward].reverse());
    await handle.signal(finishSignal, 'done');
    await handle.result();
  });

  it('pages history and long-polls for new events', async () => {
    const handle = h.track(
      await h.client.workflow.start('waitForFinish', { taskQueue, workflowId: uid('paging') }),
    );
    assert.equal(await handle.query(stateQuery), 'waiting');
    const svc = h.connection.workflowService;
    const execution = { workflowId: handle.workflowId, runId: handle.firstExecutionRunId };
    const first = await svc.getWorkflowExecutionHistory({
      namespace: h.namespace,
      execution,
      maximumPageSize: 2,
    });
    assert.equal(first.history?.events?.length, 2);
    assert.ok(first.nextPageToken && first.nextPageToken.length > 0);
    const second = await svc.getWorkflowExecutionHistory({
      namespace: h.namespace,
      execution,
      maximumPageSize: 100,
      nextPageToken: first.nextPageToken,
    });
    assert.equal(Number(second.history!.events![0]!.eventId), 3);
    const lastId = Number(second.history!.events!.at(-1)!.eventId);

    // A waiting read returns once the signal lands.
    const waiting = svc.getWorkflowExecutionHistory({
      namespace: h.namespace,
      execution,
      waitNewEvent: true,
      nextPageToken: second.nextPageToken?.length ? second.nextPageToken : undefined,
    });
    await handle.signal(finishSignal, 'ping');
    const fresh = await waiting;
    assert.ok(
      fresh.history!.events!.every((e) => Number(e.eventId) > (second.nextPageToken?.length ? lastId : 0)),
    );
    assert.ok(fresh.history!.events!.length > 0);
    await handle.result();

    const close = await svc.getWorkflowExecutionHistory({
      namespace: h.namespace,
      execution,
      historyEventFilterType: 2,
    });
    assert.equal(close.history?.events?.length, 1);
    assert.equal(close.history?.events?.[0]?.eventType, 2);
  });

  it('records markers (local activity, patch) and cancels a timer', async () => {
    const handle = h.track(
      await h.client.workflow.start('markersAndCancelledTimer', { taskQueue, workflowId: uid('markers') }),
    );
    assert.equal(await handle.result(), 'local:patched');
    const types = (await handle.fetchHistory()).events!.map((e) => e.eventType);
    assert.ok(types.includes(25), 'MarkerRecorded');
    assert.ok(types.includes(19), 'TimerCanceled');
  });

  it('fails, cancels and terminates workflows', async () => {
    const failing = h.track(
      await h.client.workflow.start('failsWith', { taskQueue, workflowId: uid('fail'), args: ['boom'] }),
    );
    await assert.rejects(
      failing.result(),
      (err: unknown) =>
        err instanceof WorkflowFailedError && /boom/.test(String((err.cause as Error | undefined)?.message)),
    );

    const cancelled = h.track(
      await h.client.workflow.start('waitsForCancel', { taskQueue, workflowId: uid('cancel') }),
    );
    await cancelled.cancel();
    await assert.rejects(cancelled.result(), WorkflowFailedError);
    assert.equal((await cancelled.describe()).status.name, 'CANCELLED');

    const terminated = h.track(
      await h.client.workflow.start('waitsForCancel', { taskQueue, workflowId: uid('term') }),
    );
    await terminated.terminate('enough');
    await assert.rejects(terminated.result(), WorkflowFailedError);
    const d = await terminated.describe();
    assert.equal(d.status.name, 'TERMINATED');
    const last = (await terminated.fetchHistory()).events!.at(-1)!;
    assert.equal(last.workflowExecutionTerminatedEventAttributes?.reason, 'enough');
    await assert.rejects(terminated.signal(finishSignal, 'late'), WorkflowNotFoundError);
  });

  it('continues as new and follows the chain to the result', async () => {
    const handle = h.track(
      await h.client.workflow.start('countdown', { taskQueue, workflowId: uid('can'), args: [2] }),
    );
    assert.equal(await handle.result(), 'done after continuing');
    const firstRun = h.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
    const first = (await firstRun.fetchHistory()).events!.at(-1)!;
    assert.equal(first.eventType, 28, 'first run ends WorkflowExecutionContinuedAsNew');
    const latest = await h.client.workflow.getHandle(handle.workflowId).describe();
    assert.notEqual(latest.runId, handle.firstExecutionRunId);
    assert.equal(latest.status.name, 'COMPLETED');
  });

  it('sleeps on a durable timer', async () => {
    const handle = h.track(
      await h.client.workflow.start('sleeper', { taskQueue, workflowId: uid('sleep'), args: [300] }),
    );
    assert.equal(await handle.result(), 'woke');
  });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
