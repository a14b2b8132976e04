import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, it } from 'node:test';
import { setup, uid, usingExternalServer, type Harness } from './harness.js';
import { finishSignal, stateQuery } from './workflows.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
let h: Harness;

before(async () => {
  h = await setup();
});
after(async () => h.teardown(), { timeout: 90_000 } as never);

/** Starts the one-hour-sticky worker in a child process; resolves once it polls. */
function startStickyWorker(taskQueue: string) {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/devserver/sticky-worker.ts'], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      STICKY_ADDRESS: h.temporal.address,
      STICKY_NAMESPACE: h.namespace,
      STICKY_TASK_QUEUE: taskQueue,
    },
  });
  return new Promise<typeof proc>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('worker ready')) resolve(proc);
    });
    proc.once('exit', (code) => reject(new Error(`sticky worker exited early (${code})`)));
  });
}

it(
  "a killed worker's cached run goes on at once on another worker, not after its sticky timeout",
  {
    skip: usingExternalServer && 'needs the devserver: the sticky timeout of a real server applies',
    timeout: 60_000,
  },
  async () => {
    const taskQueue = uid('sticky');
    const child = await startStickyWorker(taskQueue);
    const handle = h.track(
      await h.client.workflow.start('waitForFinish', { taskQueue, workflowId: uid('sticky') }),
    );
    // The child has run the first task and cached the run: its next task would go to the child's queue.
    for (;;) {
      const { events } = await handle.fetchHistory();
      if (events!.some((e) => e.workflowTaskCompletedEventAttributes)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;

    await h.worker({ taskQueue });
    await handle.signal(finishSignal, 'after the kill');
    // With the child's sticky queue still in use, this task would wait an hour for it.
    assert.equal(await handle.result(), 'after the kill');
  },
);

it(
  'a query taken by a worker that goes away before answering is answered by another worker',
  { skip: usingExternalServer && 'needs the devserver: a fake worker drives its polls', timeout: 45_000 },
  async () => {
    const { taskQueue, worker } = await h.worker();
    const handle = h.track(
      await h.client.workflow.start('waitForFinish', { taskQueue, workflowId: uid('orphaned-query') }),
    );
    for (;;) {
      const { events } = await handle.fetchHistory();
      if (events!.some((e) => e.workflowTaskCompletedEventAttributes)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    worker.shutdown();
    while (worker.getState() !== 'STOPPED') await new Promise((r) => setTimeout(r, 50));

    // A worker of our own making takes the query task and never answers it...
    const answer = handle.query(stateQuery);
    const service = h.connection.workflowService;
    const fake = { namespace: h.namespace, taskQueue: { name: taskQueue, kind: 1 }, identity: uid('fake') };
    const task = await h.connection.withDeadline(Date.now() + 10_000, () =>
      service.pollWorkflowTaskQueue(fake),
    );
    assert.ok(task.query, 'the fake worker took the query task');
    // ...then goes away: its last poll is cancelled, as a killed process's would be.
    const gone = new AbortController();
    const lastPoll = h.connection.withAbortSignal(gone.signal, () => service.pollWorkflowTaskQueue(fake));
    await new Promise((r) => setTimeout(r, 100));
    gone.abort();
    await lastPoll.catch(() => undefined);

    await h.worker({ taskQueue });
    // Without the resend, the query would wait out the devserver's 60 s query timeout and fail.
    assert.equal(await answer, 'waiting');
    await handle.signal(finishSignal, 'done');
    assert.equal(await handle.result(), 'done');
  },
);
