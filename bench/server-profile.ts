/**
 * Where the Temporal dev server's CPU goes per Countersign run (prints figures, asserts nothing).
 * The server and a worker run as in the bench's countersign-signal system. Phase "pause" starts
 * `--runs` runs and waits until all wait for approval; phase "approve" approves them all and waits
 * for every result. During each, `perf record` samples the server's call stacks and /proc gives
 * its CPU time; the samples are then put in categories (bench/lib/go-profile.ts) and each
 * category's share of the samples is turned into CPU ms per run.
 */
import { mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startRun } from '../client/index.js';
import { SEARCH_ATTRIBUTES, WAITING_FILTER } from '../protocol/index.js';
import { pool } from '../test/faults/support/pool.js';
import { approveFirst, startBenchStack, type BenchStack, type ServerSettings } from './lib/bench-stack.js';
import { foldSmall, profileGoBinary, type Profile } from './lib/go-profile.js';
import { profilingProblem, startPerfRecord, type PerfRecording } from './lib/perf-record.js';
import { machineInfo } from './lib/machine.js';
import { cpuMs } from './lib/proc.js';
import { inputFor } from './lib/scenario.js';
import { now } from './lib/stats.js';

const USAGE =
  'usage: npm run bench:server-profile -- [--runs N] [--by signal|update] [--server one-machine|defaults] [--in-flight N] [--hz N]';

function usageError(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

function parse() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        runs: { type: 'string', default: '1000' },
        by: { type: 'string', default: 'signal' },
        server: { type: 'string', default: 'one-machine' },
        'in-flight': { type: 'string', default: '50' },
        hz: { type: 'string', default: '99' },
      },
    }));
  } catch (err) {
    usageError((err as Error).message);
  }
  const positive = (name: 'runs' | 'in-flight' | 'hz') => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < 1) usageError(`--${name} must be a whole number above 0`);
    return n;
  };
  if (values.by !== 'signal' && values.by !== 'update') usageError('--by must be signal or update');
  if (values.server !== 'one-machine' && values.server !== 'defaults')
    usageError('--server must be one-machine or defaults');
  return {
    runs: positive('runs'),
    by: values.by,
    server: values.server as ServerSettings,
    inFlight: positive('in-flight'),
    hz: positive('hz'),
  };
}

const args = parse();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'countersign-server-profile-'));
const problem = await profilingProblem(args.hz, path.join(tmp, 'check.data'));
if (problem) {
  rmSync(tmp, { recursive: true, force: true });
  console.error(`server-profile: ${problem}`);
  process.exit(2);
}

let bench: BenchStack | undefined;
let recording: PerfRecording | undefined;
let cleaned: Promise<void> | undefined;
const cleanUp = () =>
  (cleaned ??= (async () => {
    recording?.kill();
    await bench?.stop();
    rmSync(tmp, { recursive: true, force: true });
  })());
process.once('SIGINT', () => void cleanUp().finally(() => process.exit(130)));

interface Measured {
  phase: string;
  wallMs: number;
  serverCpuMs: number;
}

const perfFile = (phase: string) => path.join(tmp, `${phase}.data`);

/** One phase's work, with the server's CPU time read around it and perf sampling it. */
async function measure(phase: string, serverPid: number, work: () => Promise<void>): Promise<Measured> {
  recording = await startPerfRecord(serverPid, args.hz, perfFile(phase));
  const cpu0 = cpuMs(serverPid);
  const t0 = now();
  await work();
  const wallMs = now() - t0;
  const serverCpuMs = cpuMs(serverPid) - cpu0;
  await recording.stop();
  recording = undefined;
  return { phase, wallMs, serverCpuMs };
}

function report(measured: Measured, profile: Profile) {
  const serverCpuMsPerRun = measured.serverCpuMs / args.runs;
  const share = (samples: number) => samples / Math.max(1, profile.samples);
  const categories = profile.categories.map((c) => ({
    name: c.name,
    samples: c.samples,
    share: share(c.samples),
    cpuMsPerRun: share(c.samples) * serverCpuMsPerRun,
    kernelShare: c.kernel / c.samples,
  }));
  return { ...measured, serverCpuMsPerRun, samples: profile.samples, categories };
}

function print(phase: ReturnType<typeof report>, folded: ReturnType<typeof foldSmall>): void {
  console.log(
    `\n${phase.phase}: ${args.runs} runs in ${(phase.wallMs / 1000).toFixed(1)} s, server ` +
      `${phase.serverCpuMsPerRun.toFixed(2)} cpu ms/run, ${phase.samples} samples`,
  );
  console.log(
    `  ${'category'.padEnd(44)} ${'samples %'.padStart(9)} ${'cpu ms/run'.padStart(10)} ${'kernel %'.padStart(8)}`,
  );
  for (const c of folded) {
    const share = c.samples / Math.max(1, phase.samples);
    console.log(
      `  ${c.name.padEnd(44)} ${(100 * share).toFixed(1).padStart(9)} ` +
        `${(share * phase.serverCpuMsPerRun).toFixed(2).padStart(10)} ${((100 * c.kernel) / c.samples).toFixed(0).padStart(8)}`,
    );
  }
}

try {
  bench = await startBenchStack('server-profile', args.server);
  const { client, agent, stack } = bench;
  const serverPid = stack.pid('temporal');
  const binary = readlinkSync(`/proc/${serverPid}/exe`);
  const inputs = Array.from({ length: args.runs }, (_, i) => inputFor('server-profile', i));
  let runIds: string[] = [];

  const pause = await measure('pause', serverPid, async () => {
    runIds = await pool(
      inputs,
      args.inFlight,
      async (input) => (await startRun(client, { agent, input })).runId,
    );
    // As the bench counts them: the inbox's own filter, counted instead of listed.
    const query = `${SEARCH_ATTRIBUTES.agent.name} = '${agent.name}' AND ${WAITING_FILTER}`;
    while ((await client.workflow.count(query)).count < runIds.length) await sleep(100);
  });
  const approve = await measure('approve', serverPid, async () => {
    // All decisions go out first, as a crowd of reviewers would send them; then the runs are awaited.
    await pool(runIds, args.inFlight, (runId) =>
      approveFirst(client, runId, args.by as 'signal' | 'update', 'server-profile'),
    );
    await pool(runIds, args.inFlight, (runId) => client.workflow.getHandle(runId).result());
  });
  // Nothing left to measure on the stack, and the analysis needs the cores.
  await bench.stop();

  const phases = [];
  for (const measured of [pause, approve]) {
    const profile = await profileGoBinary(perfFile(measured.phase), binary);
    const phase = report(measured, profile);
    print(phase, foldSmall(profile, 0.005));
    phases.push(phase);
  }
  console.log(
    "\nkernel %: of the category's samples, those whose leaf is in the kernel (system calls: writes, fsync)",
  );

  const outDir = path.resolve('bench/results');
  mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, `server-profile-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify({ args, machine: machineInfo(), binary, phases }, null, 2)}\n`);
  console.log(`written to ${path.relative(process.cwd(), file)}`);
} finally {
  await cleanUp();
}
