/**
 * Devserver benchmark (prints JSON, asserts nothing). One devserver process on a file
 * database and one worker in this process:
 *  (a) completed workflows/s for a one-activity workflow over 2,000 workflows, and the CPU
 *      each cost the devserver process and this process (worker + client);
 *  (b) signal-to-activity-start latency p50/p99;
 *  (c) devserver RSS and database bytes per idle workflow, 10,000 workflows waiting on a signal.
 * The machine's load average is printed too: on a shared machine (a) and (b) follow it.
 */
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';

const WORKFLOWS = Number(process.env.BENCH_WORKFLOWS ?? 2000);
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 200);
const IDLE = Number(process.env.BENCH_IDLE ?? 10_000);
const CONCURRENCY = 100;

// Knobs for investigating, not for the figures: BENCH_DEVSERVER_NODE_FLAGS (e.g. "--cpu-prof
// --cpu-prof-dir=/tmp/prof") profiles the devserver process; BENCH_DEVSERVER_CLI runs another
// build of the devserver (before/after comparisons); BENCH_THREADS=1 prints CPU per thread.
const devserverNodeFlags = (process.env.BENCH_DEVSERVER_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
const devserverCli = process.env.BENCH_DEVSERVER_CLI ?? 'devserver/cli.ts';
const repoRoot = fileURLToPath(new URL('../', import.meta.url));

/** The devserver CLI as a child process (as test/support does), with optional extra node flags. */
function spawnDevServerProcess(opts: { dbPath: string; port: number; nodeFlags: string[] }) {
  const child = spawn(
    process.execPath,
    [...opts.nodeFlags, '--import', 'tsx', devserverCli, '--port', String(opts.port), '--db', opts.dbPath],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(signal ?? code ?? 0)),
  );
  return new Promise<{
    address: string;
    pid: number;
    kill: (s: NodeJS.Signals) => void;
    exited: typeof exited;
  }>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /devserver listening on (\S+)/.exec(out);
      if (!m) return;
      child.stdout.off('data', onData);
      child.stdout.resume();
      resolve({ address: m[1]!, pid: child.pid!, kill: (s) => child.kill(s), exited });
    };
    child.stdout.on('data', onData);
    void exited.then((code) => reject(new Error(`devserver exited (${code}) before listening`)));
  });
}

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

/** CPU seconds (user + system) a process has used, all its threads. */
function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}
/** CPU seconds per thread name of a process (diagnostics, BENCH_THREADS=1). */
function threadCpu(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      out[`${name}/${tid}`] = (Number(f[11]) + Number(f[12])) / 100;
    } catch {
      // thread ended
    }
  }
  return out;
}
const threadDelta = (a: Record<string, number>, b: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(b)
      .map(([k, v]) => [k, +((v - (a[k] ?? 0)) * 1000).toFixed(0)] as const)
      .filter(([, v]) => v > 0),
  );
const ownCpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

const dir = mkdtempSync(join(tmpdir(), 'devserver-bench-'));
const dbPath = join(dir, 'bench.db');
const server = await spawnDevServerProcess({ dbPath, port: 0, nodeFlags: devserverNodeFlags });
const pid = server.pid;
const connection = await Connection.connect({ address: server.address });
const client = new Client({ connection });
const native = await NativeConnection.connect({ address: server.address });
const taskQueue = 'bench';
// SDK defaults throughout (1.24.0: eager activity dispatch requested, sticky queues on,
// maxConcurrentWorkflowTaskExecutions 40, reuseV8Context); printed with the figures.
const workerOptions = {};
const worker = await Worker.create({
  connection: native,
  taskQueue,
  workflowsPath,
  activities,
  ...workerOptions,
});
const running = worker.run();

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
const machine = { cpus: availableParallelism(), loadAverageAtStart: loadAverage() };

try {
  // (a) throughput
  const cpu0 = { devserver: cpuSeconds(pid), bench: ownCpuSeconds() };
  const threads0 = process.env.BENCH_THREADS ? { d: threadCpu(pid), w: threadCpu(process.pid) } : undefined;
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
  // CPU milliseconds per completed workflow: the devserver process, and this process (worker + client).
  if (threads0) {
    console.error('devserver thread CPU ms', threadDelta(threads0.d, threadCpu(pid)));
    console.error('bench thread CPU ms', threadDelta(threads0.w, threadCpu(process.pid)));
  }
  const cpuMsPerWorkflow = {
    devserver: +(((cpuSeconds(pid) - cpu0.devserver) * 1000) / WORKFLOWS).toFixed(2),
    workerAndClient: +(((ownCpuSeconds() - cpu0.bench) * 1000) / WORKFLOWS).toFixed(2),
  };

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
        machine: { ...machine, loadAverageAtEnd: loadAverage() },
        workerOptions: Object.keys(workerOptions).length > 0 ? workerOptions : 'SDK defaults',
        throughput: {
          workflows: WORKFLOWS,
          seconds: +throughputSeconds.toFixed(2),
          workflowsPerSecond: +(WORKFLOWS / throughputSeconds).toFixed(1),
          cpuMsPerWorkflow,
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
