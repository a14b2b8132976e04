import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError } from '@temporalio/client';
import { status } from '@grpc/grpc-js';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setup, uid, type Harness } from './harness.js';
import { finishSignal, stateQuery } from './workflows.js';

let h: Harness;
let taskQueue: string;

before(async () => {
  h = await setup();
  ({ taskQueue } = await h.worker());
});
after(async () => h.teardown(), { timeout: 90_000 } as never);

const grpcCode = (err: unknown) => (err as { code?: number }).code;

describe('devserver workflow lifecycle', { timeout: 60_000 }, () => {
  it('dedupes a retried start by request id', async () => {
    const svc = h.connection.workflowService;
    const workflowId = uid('dedupe');
    const req = {
      namespace: h.namespace,
      workflowId,
      workflowType: { name: 'waitForFinish' },
      taskQueue: { name: taskQueue },
      requestId: randomUUID(),
    };
    const a = await svc.startWorkflowExecution(req);
    const b = await svc.startWorkflowExecution(req);
    assert.equal(a.runId, b.runId);
    const handle = h.track(h.client.workflow.getHandle(workflowId));
    await handle.signal(finishSignal, 'ok');
    await handle.result();
  });

  it('rejects a second start of a running id with WorkflowExecutionAlreadyStartedError', async () => {
    const workflowId = uid('dup');
    const handle = h.track(await h.client.workflow.start('waitForFinish', { taskQueue, workflowId }));
    await assert.rejects(
      h.client.workflow.start('waitForFinish', { taskQueue, workflowId }),
      WorkflowExecutionAlreadyStartedError,
    );
    // USE_EXISTING returns the running run instead.
    const same = await h.client.workflow.start('waitForFinish', {
      taskQueue,
      workflowId,
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    assert.equal(same.firstExecutionRunId, handle.firstExecutionRunId);
    // TERMINATE_EXISTING replaces it.
    const replaced = h.track(
      await h.client.workflow.start('waitForFinish', {
        taskQueue,
        workflowId,
        workflowIdConflictPolicy: 'TERMINATE_EXISTING',
      }),
    );
    assert.notEqual(replaced.firstExecutionRunId, handle.firstExecutionRunId);
    const old = h.client.workflow.getHandle(workflowId, handle.firstExecutionRunId);
    assert.equal((await old.describe()).status.name, 'TERMINATED');
    await replaced.signal(finishSignal, 'ok');
    await replaced.result();
  });

  it('applies workflow id reuse policies to closed runs', async () => {
    const workflowId = uid('reuse');
    const first = h.track(await h.client.workflow.start('sleeper', { taskQueue, workflowId, args: [1] }));
    await first.result();
    await assert.rejects(
      h.client.workflow.start('sleeper', {
        taskQueue,
        workflowId,
        args: [1],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
      WorkflowExecutionAlreadyStartedError,
    );
    await assert.rejects(
      h.client.workflow.start('sleeper', {
        taskQueue,
        workflowId,
        args: [1],
        workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      }),
      WorkflowExecutionAlreadyStartedError,
    );
    const again = await h.client.workflow.start('sleeper', { taskQueue, workflowId, args: [1] });
    assert.notEqual(again.firstExecutionRunId, first.firstExecutionRunId);
    await again.result();
  });

  it('dedupes a retried signal by request id', async () => {
    const handle = h.track(
      await h.client.workflow.start('waitForFinish', { taskQueue, workflowId: uid('sigdedupe') }),
    );
    const req = {
      namespace: h.namespace,
      workflowExecution: { workflowId: handle.workflowId },
      signalName: 'unknown-signal',
      requestId: randomUUID(),
    };
    await h.connection.workflowService.signalWorkflowExecution(req);
    await h.connection.workflowService.signalWorkflowExecution(req);
    await handle.signal(finishSignal, 'ok');
    await handle.result();
    const signals = (await handle.fetchHistory()).events!.filter((e) => e.eventType === 26);
    assert.equal(signals.length, 2, 'one deduped signal plus finish');
  });

  it('signal-with-start starts once and then signals the running run', async () => {
    const workflowId = uid('sws');
    const a = h.track(
      await h.client.workflow.signalWithStart('waitForFinish', {
        taskQueue,
        workflowId,
        signal: 'nothing',
        signalArgs: [],
      }),
    );
    assert.equal(await a.query(stateQuery), 'waiting');
    const b = await h.client.workflow.signalWithStart('waitForFinish', {
      taskQueue,
      workflowId,
      signal: finishSignal,
      signalArgs: ['via sws'],
    });
    assert.equal(b.signaledRunId, a.signaledRunId);
    assert.equal(await a.result(), 'via sws');
  });

  it('times out a workflow run', async () => {
    const handle = h.track(
      await h.client.workflow.start('waitForFinish', {
        taskQueue,
        workflowId: uid('runtimeout'),
        workflowRunTimeout: '1s',
      }),
    );
    await assert.rejects(
      handle.result(),
      (err: unknown) => err instanceof WorkflowFailedError && /timed out/i.test(err.message),
    );
    assert.equal((await handle.describe()).status.name, 'TIMED_OUT');
  });

  it('times out a workflow execution', async () => {
    const handle = h.track(
      await h.client.workflow.start('waitForFinish', {
        taskQueue,
        workflowId: uid('exectimeout'),
        workflowExecutionTimeout: '1s',
      }),
    );
    await assert.rejects(handle.result(), WorkflowFailedError);
    assert.equal((await handle.describe()).status.name, 'TIMED_OUT');
  });

  it('answers bad input with clear gRPC statuses', async () => {
    const svc = h.connection.workflowService;
    await assert.rejects(
      svc.startWorkflowExecution({
        namespace: h.namespace,
        workflowId: '',
        workflowType: { name: 'x' },
        taskQueue: { name: 'q' },
        requestId: 'r',
      }),
      (err: unknown) => grpcCode(err) === status.INVALID_ARGUMENT,
    );
    await assert.rejects(
      svc.signalWorkflowExecution({
        namespace: h.namespace,
        workflowExecution: { workflowId: uid('missing') },
        signalName: 's',
      }),
      (err: unknown) => grpcCode(err) === status.NOT_FOUND,
    );
    await assert.rejects(
      svc.respondActivityTaskCompleted({ namespace: h.namespace, taskToken: Buffer.from('garbage') }),
      (err: unknown) => grpcCode(err) === status.INVALID_ARGUMENT || grpcCode(err) === status.NOT_FOUND,
    );
    await assert.rejects(
      svc.listWorkflowExecutions({ namespace: h.namespace, query: 'WorkflowId = ' }),
      (err: unknown) => grpcCode(err) === status.INVALID_ARGUMENT,
    );
    await assert.rejects(
      h.client.workflow.start('waitForFinish', {
        taskQueue,
        workflowId: uid('badattr'),
        searchAttributes: { NotRegisteredAnywhere: ['x'] },
      }),
      (err: unknown) =>
        /NotRegisteredAnywhere/.test(String((err as Error).message) + String((err as Error).cause)),
    );
    // The server is still fine.
    const info = await svc.getSystemInfo({});
    assert.ok(info.serverVersion);
  });
});
