import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import proto from '@temporalio/proto';
import { setup, uid, usingExternalServer, type Harness } from './harness.js';

let h: Harness;

before(async () => {
  h = await setup();
});
after(async () => h.teardown());

const STARTED = proto.temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED;

it(
  'a query goes to the sticky queue of the worker that has the run cached, without history; to the normal queue with the full history when that worker does not take it',
  { skip: usingExternalServer && 'needs the devserver: a fake worker drives its polls', timeout: 30_000 },
  async () => {
    const service = h.connection.workflowService;
    const taskQueue = uid('sticky-query');
    const stickyQueue = uid('sticky-query-worker');
    const worker = { namespace: h.namespace, identity: uid('fake') };
    const poll = (queue: string, kind: number) =>
      h.connection.withDeadline(Date.now() + 10_000, () =>
        service.pollWorkflowTaskQueue({ ...worker, taskQueue: { name: queue, kind } }),
      );
    const answer = (taskToken: Uint8Array, text: string) =>
      service.respondQueryTaskCompleted({
        namespace: h.namespace,
        taskToken,
        completedType: 1,
        queryResult: { payloads: [defaultPayloadConverter.toPayload(text)] },
      });

    const handle = h.track(
      await h.client.workflow.start('waitForFinish', { taskQueue, workflowId: uid('sticky-query') }),
    );
    // The fake worker runs the first task and keeps the run cached behind its sticky queue, which
    // it must take tasks from within a second.
    const first = await poll(taskQueue, 1);
    await service.respondWorkflowTaskCompleted({
      ...worker,
      taskToken: first.taskToken,
      commands: [],
      stickyAttributes: {
        workerTaskQueue: { name: stickyQueue, kind: 2 },
        scheduleToStartTimeout: proto.google.protobuf.Duration.fromObject({ seconds: 1 }),
      },
    });

    const cached = handle.query('state');
    const onSticky = await poll(stickyQueue, 2);
    assert.ok(onSticky.query, 'the query went to the sticky queue');
    const stickyEvents = onSticky.history?.events ?? [];
    assert.ok(
      !stickyEvents.some((e) => e.eventType === STARTED),
      'the cached run is not sent its history again',
    );
    await answer(onSticky.taskToken!, 'from the cache');
    assert.equal(await cached, 'from the cache');

    // Now the sticky worker does not poll: the query goes to the normal queue, with everything.
    const uncached = handle.query('state');
    const onNormal = await poll(taskQueue, 1);
    assert.ok(onNormal.query, 'the query went to the normal queue');
    assert.equal(onNormal.history?.events?.[0]?.eventType, STARTED);
    await answer(onNormal.taskToken!, 'replayed');
    assert.equal(await uncached, 'replayed');
  },
);
