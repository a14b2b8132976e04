import { Context, CompleteAsyncError, sleep as activitySleep } from '@temporalio/activity';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { getTestTemporal, type TestTemporal } from '../support/temporal-server.js';

export const workflowsPath = fileURLToPath(new URL('./workflows.ts', import.meta.url));
export const usingExternalServer = !!process.env.TEMPORAL_ADDRESS;

Runtime.install({ logger: new DefaultLogger('WARN') });

/** Activities used by the suite; async completion and heartbeats go through these. */
export const activities = {
  async greet(name: string): Promise<string> {
    return `hello ${name}`;
  },
  async localEcho(v: string): Promise<string> {
    return v;
  },
  /** Fails (retryably) until attempt `okAt`, then returns the attempt number. */
  async failUntil(okAt: number): Promise<number> {
    const { attempt } = Context.current().info;
    if (attempt < okAt) throw ApplicationFailure.retryable(`attempt ${attempt} fails`, 'Flaky');
    return attempt;
  },
  async failWithType(type: string): Promise<never> {
    throw ApplicationFailure.retryable(`failing with ${type}`, type);
  },
  async failNonRetryable(): Promise<never> {
    throw ApplicationFailure.nonRetryable('this cannot work', 'Hopeless');
  },
  /** Attempt 1 heartbeats `progress-1` then hangs past its heartbeat timeout; attempt 2 returns what it inherited. */
  async heartbeatThenHang(): Promise<unknown> {
    const ctx = Context.current();
    if (ctx.info.attempt === 1) {
      ctx.heartbeat('progress-1');
      await ctx.sleep(30_000).catch(() => undefined);
      return 'should not happen';
    }
    return { attempt: ctx.info.attempt, inherited: ctx.info.heartbeatDetails };
  },
  /** Attempt 1 outlives its start-to-close timeout; attempt 2 succeeds. */
  async slowFirstAttempt(): Promise<string> {
    const ctx = Context.current();
    if (ctx.info.attempt === 1) await ctx.sleep(30_000).catch(() => undefined);
    return `attempt ${ctx.info.attempt}`;
  },
  async heartbeatUntilCancelled(): Promise<never> {
    const ctx = Context.current();
    for (;;) {
      ctx.heartbeat();
      await ctx.sleep(100);
    }
  },
  /** Hands its identity to the test, which completes it by id. */
  async completeLater(key: string): Promise<never> {
    const info = Context.current().info;
    asyncActivities.set(key, { activityId: info.activityId, taskToken: info.taskToken });
    throw new CompleteAsyncError();
  },
  async sleepMs(ms: number): Promise<string> {
    await activitySleep(ms);
    return 'slept';
  },
};

/** Activities that chose async completion, by the key their caller gave. */
export const asyncActivities = new Map<string, { activityId: string; taskToken: Uint8Array }>();

export interface Harness {
  temporal: TestTemporal;
  client: Client;
  connection: Connection;
  native: NativeConnection;
  namespace: string;
  /** Starts a worker on a fresh task queue (or the given one); it is shut down by teardown. */
  worker(opts?: Partial<WorkerOptions>): Promise<{ taskQueue: string; worker: Worker }>;
  /** Remembers a workflow so that teardown replays its history. */
  track<T extends WorkflowHandle>(handle: T): T;
  teardown(): Promise<void>;
}

export const uid = (prefix: string) => `${prefix}-${randomUUID()}`;

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
    }),
  ]);
}

export const COUNTERSIGN_ATTRIBUTES = {
  CountersignPending: 3, // INT
  CountersignAgent: 2, // KEYWORD
  CountersignStatus: 2, // KEYWORD
  CountersignPendingTools: 7, // KEYWORD_LIST
};

export async function setup(): Promise<Harness> {
  const temporal = await getTestTemporal();
  const connection = await Connection.connect({ address: temporal.address });
  const client = new Client({ connection, namespace: temporal.namespace });
  const native = await NativeConnection.connect({ address: temporal.address });
  await connection.operatorService.addSearchAttributes({
    namespace: temporal.namespace,
    searchAttributes: COUNTERSIGN_ATTRIBUTES,
  });
  const workers: { worker: Worker; running: Promise<void> }[] = [];
  const tracked: WorkflowHandle[] = [];
  return {
    temporal,
    client,
    connection,
    native,
    namespace: temporal.namespace,
    async worker(opts = {}) {
      const taskQueue = opts.taskQueue ?? uid('tq');
      const worker = await Worker.create({
        connection: native,
        namespace: temporal.namespace,
        workflowsPath,
        activities,
        ...opts,
        taskQueue,
      });
      const running = worker.run();
      workers.push({ worker, running });
      return { taskQueue, worker };
    },
    track(handle) {
      tracked.push(handle);
      return handle;
    },
    async teardown() {
      try {
        const histories = await Promise.all(
          tracked.map(async (h) => ({ workflowId: `${h.workflowId}`, history: await h.fetchHistory() })),
        );
        if (histories.length > 0) {
          await withTimeout(
            (async () => {
              for await (const r of Worker.runReplayHistories({ workflowsPath }, histories)) {
                if (r.error) throw new Error(`replay of ${r.workflowId} failed: ${r.error.message}`);
              }
            })(),
            60_000,
            'replay',
          );
        }
      } finally {
        for (const w of workers) if (w.worker.getState() === 'RUNNING') w.worker.shutdown();
        await withTimeout(Promise.all(workers.map((w) => w.running)), 20_000, 'worker shutdown');
        await native.close();
        await connection.close();
        await temporal.stop();
      }
    },
  };
}
