/**
 * Devserver benchmark (prints JSON, asserts nothing). One devserver process on a file
 * database and one worker in this process:
 *  (a) completed workflows/s for a one-activity workflow over 2,000 workflows;
 *  (b) signal-to-activity-start latency p50/p99;
 *  (c) devserver RSS and database bytes per idle workflow, 10,000 workflows waiting on a signal.
 */
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnDevServerProcess } from '../test/support/temporal-server.js';

const WORKFLOWS = Number(process.env.BENCH_WORKFLOWS ?? 2000);
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 200);
const IDLE = Number(process.env.BENCH_IDLE ?? 10_000);
const CONCURRENCY = 100;

const workflowsPath = fileURLToPath(new URL('../test/devserver/workflows.ts', import.meta.url));
Runtime.install({ logger: new DefaultLogger('ERROR') });

const activityStarts = new Map<string, number>();
const activities = {
  async greet(name: string) {
    return `hello ${name}`;
  },
  async stamp(workflowId: string) {
    activityStarts.set(workflowId, performance.now());
  },
};

async function inBatches(n: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

function dbBytes(path: string): number {
  let total = 0;
  for (const f of [path, `${path}-wal`]) {
    try {
      total += statSync(f).size;
    } catch {
      // no WAL file
    }
  }
  return total;
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

const dir = mkdtempSync(join(tmpdir(), 'devserver-bench-'));
const dbPath = join(dir, 'bench.db');
const server = await spawnDevServerProcess({ dbPath, port: 0 });
const pid = server.pid;
const connection = await Connection.connect({ address: server.address });
const client = new Client({ connection });
const native = await NativeConnection.connect({ address: server.address });
const taskQueue = 'bench';
const worker = await Worker.create({ connection: native, taskQueue, workflowsPath, activities });
const running = worker.run();

try {
  // (a) throughput
  const t0 = performance.now();
  await inBatches(WORKFLOWS, async (i) => {
    const h = await client.workflow.start('callActivity', {
      taskQueue,
      workflowId: `tp-${i}`,
      args: ['greet', ['x'], { startToCloseTimeout: '10s' }],
    });
    await h.result();
  });
  const throughputSeconds = (performance.now() - t0) / 1000;

  // (b) signal -> activity start latency, one at a time so samples do not queue behind each other
  const latencies: number[] = [];
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    const workflowId = `lat-${i}`;
    const h = await client.workflow.start('activityOnSignal', { taskQueue, workflowId });
    // Make sure the first workflow task is done, so the signal is the only thing in flight.
    await h.query('__stack_trace').catch(() => undefined);
    const sent = performance.now();
    await h.signal('finish', 'go');
    await h.result();
    latencies.push(activityStarts.get(workflowId)! - sent);
  }

  // (c) idle footprint
  const rssBefore = rssBytes(pid);
  const dbBefore = dbBytes(dbPath);
  await inBatches(IDLE, (i) =>
    client.workflow.start('waitForFinish', { taskQueue, workflowId: `idle-${i}` }),
  );
  for (;;) {
    const { count } = await client.workflow.count(`WorkflowType = 'waitForFinish' AND HistoryLength >= 4`);
    if (count >= IDLE) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const rssAfter = rssBytes(pid);
  const dbAfter = dbBytes(dbPath);

  console.log(
    JSON.stringify(
      {
        throughput: {
          workflows: WORKFLOWS,
          seconds: +throughputSeconds.toFixed(2),
          workflowsPerSecond: +(WORKFLOWS / throughputSeconds).toFixed(1),
        },
        signalToActivityStartMs: {
          samples: LATENCY_SAMPLES,
          p50: +percentile(latencies, 50).toFixed(2),
          p99: +percentile(latencies, 99).toFixed(2),
        },
        idle: {
          workflows: IDLE,
          devserverRssBytes: rssAfter,
          rssBytesPerWorkflow: Math.round((rssAfter - rssBefore) / IDLE),
          databaseBytes: dbAfter,
          databaseBytesPerWorkflow: Math.round((dbAfter - dbBefore) / IDLE),
        },
      },
      null,
      2,
    ),
  );
} finally {
  worker.shutdown();
  await running;
  await native.close();
  await connection.close();
  server.kill('SIGTERM');
  await server.exited;
  rmSync(dir, { recursive: true, force: true });
}
