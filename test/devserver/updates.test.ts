import { WorkflowNotFoundError, WorkflowUpdateFailedError, WorkflowUpdateStage } from '@temporalio/client';
import proto from '@temporalio/proto';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setup, uid, type Harness } from './harness.js';
import { addSlowlyUpdate, addUpdate, finishSignal, totalQuery } from './workflows.js';

const EventType = proto.temporal.api.enums.v1.EventType;

let h: Harness;
let taskQueue: string;

before(async () => {
  h = await setup();
  ({ taskQueue } = await h.worker());
});
after(async () => h.teardown(), { timeout: 90_000 } as never);

const startCounter = async () =>
  h.track(await h.client.workflow.start('counter', { taskQueue, workflowId: uid('counter') }));

async function eventTypes(workflowId: string): Promise<number[]> {
  const { events } = await h.client.workflow.getHandle(workflowId).fetchHistory();
  return events!.map((e) => e.eventType!);
}

describe('devserver updates', { timeout: 60_000 }, () => {
  it('delivers an update in a workflow task, answers with its result, and records it in history', async () => {
    const handle = await startCounter();
    assert.equal(await handle.executeUpdate(addUpdate, { args: [2], updateId: 'add-1' }), 2);
    assert.equal(await handle.executeUpdate(addUpdate, { args: [3] }), 5);
    const types = await eventTypes(handle.workflowId);
    const accepted = types.filter((t) => t === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED);
    const completed = types.filter((t) => t === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED);
    assert.equal(accepted.length, 2);
    assert.equal(completed.length, 2);
    await handle.signal(finishSignal, 'done');
    assert.equal(await handle.result(), 5);
  });

  it('answers a repeated update id with the first result and runs the handler once', async () => {
    const handle = await startCounter();
    assert.equal(await handle.executeUpdate(addUpdate, { args: [4], updateId: 'same' }), 4);
    assert.equal(await handle.executeUpdate(addUpdate, { args: [4], updateId: 'same' }), 4);
    assert.equal(await handle.query(totalQuery), 4);
    await handle.signal(finishSignal, 'done');
    assert.equal(await handle.result(), 4);
  });

  it('gives a validator rejection to its caller and writes nothing of it to history', async () => {
    const handle = await startCounter();
    await handle.executeUpdate(addUpdate, { args: [1] });
    const before = await eventTypes(handle.workflowId);
    await assert.rejects(handle.executeUpdate(addUpdate, { args: [0] }), (err: unknown) => {
      assert.ok(err instanceof WorkflowUpdateFailedError, String(err));
      assert.match(String(err.cause?.message), /0 is below 1/);
      return true;
    });
    const afterRejection = await eventTypes(handle.workflowId);
    const updateEvents = (types: number[]) =>
      types.filter(
        (t) =>
          t === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED ||
          t === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED,
      ).length;
    assert.equal(updateEvents(afterRejection), updateEvents(before));
    assert.equal(await handle.query(totalQuery), 1);
    await handle.signal(finishSignal, 'done');
    assert.equal(await handle.result(), 1);
  });

  it('accepts an update at once and completes it after its activity, read by polling', async () => {
    const handle = await startCounter();
    const update = await handle.startUpdate(addSlowlyUpdate, {
      args: [7],
      waitForStage: WorkflowUpdateStage.ACCEPTED,
    });
    assert.equal(await update.result(), 7);
    // A handle made from the id alone polls the same outcome.
    assert.equal(await handle.getUpdateHandle<number>(update.updateId).result(), 7);
    await handle.signal(finishSignal, 'done');
    assert.equal(await handle.result(), 7);
  });

  it('refuses an update to a closed workflow', async () => {
    const handle = await startCounter();
    await handle.signal(finishSignal, 'done');
    await handle.result();
    await assert.rejects(handle.executeUpdate(addUpdate, { args: [1] }), WorkflowNotFoundError);
  });

  it('delivers an update sent while no worker polls once one does', async () => {
    const { taskQueue: lonely, worker } = await h.worker();
    const handle = h.track(
      await h.client.workflow.start('counter', { taskQueue: lonely, workflowId: uid('counter') }),
    );
    assert.equal(await handle.executeUpdate(addUpdate, { args: [1] }), 1);
    worker.shutdown();
    await new Promise((r) => setTimeout(r, 200));
    const pending = handle.executeUpdate(addUpdate, { args: [2], updateId: uid('late') });
    await new Promise((r) => setTimeout(r, 300));
    await h.worker({ taskQueue: lonely });
    assert.equal(await pending, 3);
    await handle.signal(finishSignal, 'done');
    assert.equal(await handle.result(), 3);
  });
});
