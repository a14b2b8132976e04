import * as grpc from '@grpc/grpc-js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import { setup, uid, type Harness } from './harness.js';
import { finishSignal } from './workflows.js';

let h: Harness;
let taskQueue: string;

before(async () => {
  h = await setup();
  ({ taskQueue } = await h.worker());
});
after(async () => h.teardown(), { timeout: 90_000 } as never);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitForEvent(workflowId: string, type: number) {
  for (let i = 0; i < 300; i++) {
    const events = (await h.client.workflow.getHandle(workflowId).fetchHistory()).events!;
    const e = events.find((x) => x.eventType === type);
    if (e) return e;
    await sleep(50);
  }
  throw new Error(`event type ${type} never appeared in ${workflowId}`);
}

describe('devserver workflow tasks', { timeout: 60_000 }, () => {
  it('records a failed workflow task and retries it', async () => {
    const handle = await h.client.workflow.start('brokenTask', { taskQueue, workflowId: uid('broken') });
    const failed = await waitForEvent(handle.workflowId, 9);
    assert.match(failed.workflowTaskFailedEventAttributes?.failure?.message ?? '', /on purpose/);
    let attempt = 0;
    for (let i = 0; i < 100 && attempt < 2; i++) {
      attempt = (await handle.describe()).raw.pendingWorkflowTask?.attempt ?? 0;
      if (attempt < 2) await sleep(50);
    }
    assert.ok(attempt >= 2, `retried (attempt ${attempt})`);
    await handle.terminate('test over');
  });

  it('times out a workflow task nobody completes, then a worker finishes the run', async () => {
    const queue = uid('wft-timeout');
    const handle = h.track(
      await h.client.workflow.start('sleeper', {
        taskQueue: queue,
        workflowId: uid('wfttimeout'),
        args: [1],
        workflowTaskTimeout: '1s',
      }),
    );
    const polled = await h.connection.workflowService.pollWorkflowTaskQueue({
      namespace: h.namespace,
      taskQueue: { name: queue },
      identity: 'silent-poller',
    });
    assert.ok(polled.taskToken && polled.taskToken.length > 0, 'manual poll got the task');
    await waitForEvent(handle.workflowId, 8);
    await h.worker({ taskQueue: queue });
    assert.equal(await handle.result(), 'woke');
    // The silent poller's late answer is refused.
    await assert.rejects(
      h.connection.workflowService.respondWorkflowTaskCompleted({
        namespace: h.namespace,
        taskToken: polled.taskToken,
        commands: [],
      }),
      (err: unknown) => (err as { code?: number }).code === grpc.status.NOT_FOUND,
    );
  });

  it(
    'fails the workflow task of an unsupported command, naming it',
    { skip: !!process.env.TEMPORAL_ADDRESS },
    async () => {
      const handle = await h.client.workflow.start('startsChild', { taskQueue, workflowId: uid('child') });
      const failed = await waitForEvent(handle.workflowId, 9);
      assert.match(
        failed.workflowTaskFailedEventAttributes?.failure?.message ?? '',
        /START_CHILD_WORKFLOW_EXECUTION/,
      );
      await handle.terminate('test over');
    },
  );

  it('survives malformed request bytes', async () => {
    const client = new grpc.Client(h.temporal.address, grpc.credentials.createInsecure());
    const garbage = Buffer.from([0xff, 0xff, 0xff, 0x0f, 0x08]);
    for (const method of ['StartWorkflowExecution', 'RespondWorkflowTaskCompleted', 'QueryWorkflow']) {
      const code = await new Promise<number>((resolve) => {
        client.makeUnaryRequest(
          `/temporal.api.workflowservice.v1.WorkflowService/${method}`,
          (b: Buffer) => b,
          (b: Buffer) => b,
          garbage,
          (err) => resolve(err?.code ?? grpc.status.OK),
        );
      });
      assert.notEqual(code, grpc.status.OK, `${method} rejected garbage`);
    }
    client.close();
    assert.ok((await h.connection.workflowService.getSystemInfo({})).serverVersion);
  });
  it('hands a query-only task out again when it stays unanswered after a workflow task of its run ended', async () => {
    const queue = uid('query-race');
    const { namespace, connection } = h;
    const service = connection.workflowService;
    const handle = h.track(
      await h.client.workflow.start('waitForFinish', { taskQueue: queue, workflowId: uid('query-race') }),
    );
    const poll = () =>
      service.pollWorkflowTaskQueue({ namespace, taskQueue: { name: queue }, identity: 'raw' });
    const complete = async () => {
      const task = await poll();
      assert.ok(!task.query, 'a workflow task, not a query');
      await service.respondWorkflowTaskCompleted({
        namespace,
        taskToken: task.taskToken,
        identity: 'raw',
        commands: [],
      });
    };
    await complete();

    const answer = handle.query<string>('anything');
    const held = await poll();
    assert.equal(held.query?.queryType, 'anything');
    // The worker sits on the query while a signal's workflow task goes out and completes.
    await handle.signal(finishSignal, 'go');
    await complete();

    const again = await poll();
    assert.equal(again.query?.queryType, 'anything', 'the query is handed out again');
    await service.respondQueryTaskCompleted({
      namespace,
      taskToken: again.taskToken,
      completedType: 1,
      queryResult: { payloads: [defaultPayloadConverter.toPayload('answered')] },
    });
    assert.equal(await answer, 'answered');
    await handle.terminate('test over');
  });
});
