import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { asyncActivities, setup, uid, type Harness } from './harness.js';
import { finishSignal, type ActivityOutcome } from './workflows.js';

let h: Harness;
let taskQueue: string;

before(async () => {
  h = await setup();
  ({ taskQueue } = await h.worker());
});
after(async () => h.teardown(), { timeout: 90_000 } as never);

const fastRetry = { initialInterval: '50ms', backoffCoefficient: 1, maximumAttempts: 5 };

async function call(
  name: string,
  args: unknown[],
  options: object,
  queue = taskQueue,
): Promise<ActivityOutcome> {
  const handle = h.track(
    await h.client.workflow.start('callActivity', {
      taskQueue: queue,
      workflowId: uid(name),
      args: [name, args, options],
    }),
  );
  return (await handle.result()) as ActivityOutcome;
}

describe('devserver activities', { timeout: 60_000 }, () => {
  it('retries a failing activity per its retry policy until it succeeds', async () => {
    const out = await call('failUntil', [3], { startToCloseTimeout: '10s', retry: fastRetry });
    assert.deepEqual(out, { ok: true, result: 3 });
  });

  it('stops at maximumAttempts', async () => {
    const out = await call('failUntil', [10], {
      startToCloseTimeout: '10s',
      retry: { ...fastRetry, maximumAttempts: 2 },
    });
    assert.equal(out.ok, false);
    assert.equal(out.causeType, 'Flaky');
    assert.equal(out.retryState, 'MAXIMUM_ATTEMPTS_REACHED');
  });

  it('does not retry non-retryable failures or listed error types', async () => {
    const hopeless = await call('failNonRetryable', [], { startToCloseTimeout: '10s', retry: fastRetry });
    assert.equal(hopeless.causeType, 'Hopeless');
    assert.equal(hopeless.retryState, 'NON_RETRYABLE_FAILURE');
    const listed = await call('failWithType', ['Listed'], {
      startToCloseTimeout: '10s',
      retry: { ...fastRetry, nonRetryableErrorTypes: ['Listed'] },
    });
    assert.equal(listed.causeType, 'Listed');
    assert.equal(listed.retryState, 'NON_RETRYABLE_FAILURE');
  });

  it('times out start-to-close and retries', async () => {
    const out = await call('slowFirstAttempt', [], { startToCloseTimeout: '1s', retry: fastRetry });
    assert.deepEqual(out, { ok: true, result: 'attempt 2' });
  });

  it('times out heartbeats and hands the last details to the next attempt', async () => {
    const out = await call('heartbeatThenHang', [], {
      startToCloseTimeout: '20s',
      heartbeatTimeout: '1s',
      retry: fastRetry,
    });
    assert.equal(out.ok, true);
    assert.deepEqual(out.result, { attempt: 2, inherited: 'progress-1' });
  });

  it('times out schedule-to-start when no worker polls the queue', async () => {
    const out = await call('greet', ['nobody'], {
      taskQueue: uid('no-workers'),
      scheduleToStartTimeout: '500ms',
      startToCloseTimeout: '5s',
    });
    assert.equal(out.ok, false);
    assert.equal(out.causeType, 'TimeoutFailure');
    assert.match(out.causeMessage ?? '', /ScheduleToStart|SCHEDULE_TO_START/i);
  });

  it('times out schedule-to-close across retries', async () => {
    const out = await call('failUntil', [1000], {
      scheduleToCloseTimeout: '1s',
      retry: { initialInterval: '200ms', backoffCoefficient: 1 },
    });
    assert.equal(out.ok, false);
    assert.equal(out.retryState, 'TIMEOUT');
  });

  for (const mode of ['TRY_CANCEL', 'WAIT_CANCELLATION_COMPLETED'] as const) {
    it(`cancels a running activity through its heartbeat (${mode})`, async () => {
      const handle = h.track(
        await h.client.workflow.start('cancelActivityOnSignal', {
          taskQueue,
          workflowId: uid('actcancel'),
          args: [mode],
        }),
      );
      // Let the activity start and heartbeat before cancelling it.
      for (let i = 0; i < 100; i++) {
        const d = await handle.describe();
        if (d.raw.pendingActivities?.some((a) => a.state === 2)) break;
        await sleep(20);
      }
      await handle.signal(finishSignal, 'cancel');
      assert.equal(await handle.result(), 'cancelled');
      const types = (await handle.fetchHistory()).events!.map((e) => e.eventType);
      assert.ok(types.includes(15), 'ActivityTaskCancelRequested');
      if (mode === 'WAIT_CANCELLATION_COMPLETED') assert.ok(types.includes(16), 'ActivityTaskCanceled');
    });
  }

  it('completes an activity asynchronously by id and by token', async () => {
    for (const how of ['id', 'token'] as const) {
      const key = uid('async');
      const handle = h.track(
        await h.client.workflow.start('callActivity', {
          taskQueue,
          workflowId: uid('async'),
          args: ['completeLater', [key], { startToCloseTimeout: '30s' }],
        }),
      );
      let entry: { activityId: string; taskToken: Uint8Array } | undefined;
      for (let i = 0; i < 200 && !(entry = asyncActivities.get(key)); i++) await sleep(20);
      assert.ok(entry, 'activity started');
      if (how === 'id') {
        await h.client.activity.heartbeat(
          { workflowId: handle.workflowId, activityId: entry.activityId },
          'beat',
        );
        await h.client.activity.complete(
          { workflowId: handle.workflowId, activityId: entry.activityId },
          'done by id',
        );
      } else {
        await h.client.activity.complete(entry.taskToken, 'done by token');
      }
      assert.deepEqual(await handle.result(), { ok: true, result: `done by ${how}` });
    }
  });

  it('fails an activity asynchronously by id', async () => {
    const key = uid('asyncfail');
    const handle = h.track(
      await h.client.workflow.start('callActivity', {
        taskQueue,
        workflowId: uid('asyncfail'),
        args: ['completeLater', [key], { startToCloseTimeout: '30s', retry: { maximumAttempts: 1 } }],
      }),
    );
    let entry: { activityId: string } | undefined;
    for (let i = 0; i < 200 && !(entry = asyncActivities.get(key)); i++) await sleep(20);
    assert.ok(entry);
    await h.client.activity.fail(
      { workflowId: handle.workflowId, activityId: entry.activityId },
      new Error('nope'),
    );
    const out = (await handle.result()) as ActivityOutcome;
    assert.equal(out.ok, false);
    assert.equal(out.causeMessage, 'nope');
  });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
