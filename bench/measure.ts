import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchArgs } from './lib/args.js';
import { cpuMs, rssBytes } from './lib/proc.js';
import { medianRoundTrips, type RoundTrips } from './lib/round-trips.js';
import { splitServerBytes, type RunBytes, type ServerBytesSplit } from './lib/server-bytes.js';
import { summarize, type Summary } from './lib/stats.js';
import type { SystemInstance } from './systems.js';

export interface Batch {
  size: number;
  /** From the first start until every run waits for its approval. */
  pausedMs: number;
  /** From the first approval until every run has finished. */
  doneMs: number;
  /** Whether the worker was restarted (its cache emptied) between pausing and approving. */
  afterEviction: boolean;
  bytesPerPausedRun: number;
  /** Which of those bytes the system wrote (history, memo, search attributes), where it has a server. */
  serverBytes?: ServerBytesSplit;
  /**
   * A reviewer's reads through REST with the batch paused (after the eviction, for the evicted
   * batch), one at a time: the inbox's first page of pending approvals, and runs' details.
   */
  reads?: { firstPage: Summary; detail: Summary };
  /** RSS of each process with the batch paused, and after eviction where that applies. */
  rssPaused: Record<string, number>;
  rssEvicted?: Record<string, number>;
  /**
   * CPU of each process, in ms per second, while one inbox stream is open over the paused batch
   * (after the eviction, for the evicted batch), once the batch has settled; absent for systems
   * with no inbox.
   */
  inboxCpuMsPerSec?: Record<string, number>;
  /** The same, just before, with no inbox open: what the paused batch costs by itself. */
  idleCpuMsPerSec?: Record<string, number>;
  /** How long the batch took to settle before those were measured (see `settle`). */
  settleMs?: number;
  /** CPU of each process from the first approval until every run has finished, per run: where a batch waits. */
  cpuMsPerRunDone: Record<string, number>;
}

export interface SystemResult {
  system: string;
  fullRun: Summary;
  decisionToCompletion: Summary;
  /** CPU of every process of the system, per sequential run. */
  cpuMsPerRun: number;
  cpuMsPerRunByProcess: Record<string, number>;
  /** CPU the shared fake model spent per run (not in cpuMsPerRun). */
  modelCpuMsPerRun: number;
  /** Median over the sequential runs of what each did between its decision and its end. */
  roundTrips?: RoundTrips;
  batches: Batch[];
  /** The batch that failed, and why: the batches after it were not run. */
  failure?: string;
}

/** Paused runs of a batch whose server records are weighed; requests of each read timed. */
const WEIGHED_RUNS = 100;
const READS = 50;

/**
 * Sends a phase to the driver, failing as soon as any process of the system dies: a crashed
 * worker would otherwise leave the driver waiting forever.
 */
async function phase<T>(system: SystemInstance, message: Record<string, unknown>): Promise<T> {
  const stop = new AbortController();
  const crashed = (async (): Promise<never> => {
    for (;;) {
      await sleep(500, undefined, { signal: stop.signal });
      const dead = system.processes().find((p) => !existsSync(`/proc/${p.pid}`));
      if (dead) throw new Error(`${dead.label} (pid ${dead.pid}) died during ${String(message.phase)}`);
    }
  })();
  crashed.catch(() => undefined);
  try {
    return await Promise.race([system.driver.request<T>(message), crashed]);
  } finally {
    stop.abort();
  }
}

/**
 * What the system keeps once it has settled: a run can show as waiting while the work around its
 * pause (its notification, the server's compaction) is still being written.
 */
async function settledBytes(system: SystemInstance): Promise<number> {
  let last = system.persistedBytes();
  for (let i = 0; i < 50; i++) {
    await sleep(200);
    const now = system.persistedBytes();
    if (now === last) return now;
    last = now;
  }
  return last;
}

function rssOf(system: SystemInstance): Record<string, number> {
  return Object.fromEntries(system.processes().map((p) => [p.label, rssBytes(p.pid)]));
}

function cpuOf(system: SystemInstance): Record<string, number> {
  return Object.fromEntries(system.processes().map((p) => [p.label, cpuMs(p.pid)]));
}

function perRun(before: Record<string, number>, after: Record<string, number>, runs: number) {
  return Object.fromEntries(
    Object.entries(after).map(([label, ms]) => [label, (ms - (before[label] ?? ms)) / Math.max(1, runs)]),
  );
}

/** A batch has settled when its processes together spend less than this a second... */
const SETTLED_CPU_MS_PER_SEC = 100;
/** ...or after this long, whichever comes first. */
const SETTLE_MAX_MS = 180_000;

/**
 * Waits until the system's processes are nearly idle: a paused batch's runs are still writing the
 * server's lists, and the server its queues, for a while after each run shows as waiting (longer
 * the larger the batch). Returns how long that took.
 */
async function settle(system: SystemInstance): Promise<number> {
  const started = Date.now();
  const total = () => Object.values(cpuOf(system)).reduce((a, b) => a + b, 0);
  let before = total();
  while (Date.now() - started < SETTLE_MAX_MS) {
    await sleep(1000);
    const now = total();
    if (now - before < SETTLED_CPU_MS_PER_SEC) break;
    before = now;
  }
  return Date.now() - started;
}

/**
 * What an open inbox costs each process over idle paused runs, beside what they cost with none
 * open; undefined where there is no inbox.
 */
async function inboxCpu(system: SystemInstance, seconds: number) {
  if (seconds <= 0) return undefined;
  // Asked first whether the system has an inbox at all: settling and idling for none would be waste.
  const probe = await phase<{ open: boolean }>(system, { phase: 'inbox', ms: 0 });
  if (!probe.open) return undefined;
  // The batch's requests left garbage in the API's heap, which V8 would collect in whichever window
  // comes next (over 10,000 paused, a major collection of about 270 ms fell in the inbox's 10 s).
  await system.collectGarbage?.();
  const settleMs = await settle(system);
  const idleFrom = cpuOf(system);
  await sleep(seconds * 1000);
  const idleCpuMsPerSec = perRun(idleFrom, cpuOf(system), seconds);
  const before = cpuOf(system);
  const { open } = await phase<{ open: boolean }>(system, { phase: 'inbox', ms: seconds * 1000 });
  return open
    ? { settleMs, idleCpuMsPerSec, inboxCpuMsPerSec: perRun(before, cpuOf(system), seconds) }
    : undefined;
}

/** N runs paused at once, weighed, optionally evicted, then all approved. */
async function batch(system: SystemInstance, args: BenchArgs, size: number, evict: boolean): Promise<Batch> {
  const bytesBefore = await settledBytes(system);
  const { pausedMs } = await phase<{ pausedMs: number }>(system, {
    phase: 'pause',
    count: size,
    inFlight: args.inFlight,
  });
  const bytesPerPausedRun = ((await settledBytes(system)) - bytesBefore) / size;
  const { samples } = await phase<{ samples: RunBytes[] }>(system, { phase: 'weigh', sample: WEIGHED_RUNS });
  const serverBytes = splitServerBytes(samples, bytesPerPausedRun);
  const rssPaused = rssOf(system);
  let rssEvicted: Record<string, number> | undefined;
  if (evict) {
    await system.evict!();
    // Let the new worker finish starting up before it is weighed, and before an open inbox's cost
    // is measured: its start-up takes CPU for several seconds.
    await sleep(10_000);
    rssEvicted = rssOf(system);
  }
  const inbox = await inboxCpu(system, args.inboxSeconds);
  const timedReads = await phase<{ firstPage: number[]; detail: number[] } | undefined>(system, {
    phase: 'reads',
    count: READS,
  });
  const cpuBefore = cpuOf(system);
  const { doneMs } = await phase<{ doneMs: number }>(system, {
    phase: 'approveAll',
    inFlight: args.inFlight,
  });
  const cpuMsPerRunDone = perRun(cpuBefore, cpuOf(system), size);
  return {
    size,
    pausedMs,
    doneMs,
    afterEviction: evict,
    bytesPerPausedRun,
    ...(serverBytes ? { serverBytes } : {}),
    ...(timedReads
      ? { reads: { firstPage: summarize(timedReads.firstPage), detail: summarize(timedReads.detail) } }
      : {}),
    rssPaused,
    rssEvicted,
    ...inbox,
    cpuMsPerRunDone,
  };
}

export async function measureSystem(
  system: SystemInstance,
  args: BenchArgs,
  modelPid: number,
): Promise<SystemResult> {
  if (args.warmup > 0) await phase(system, { phase: 'sequential', runs: args.warmup });

  const cpuBefore = cpuOf(system);
  const modelBefore = cpuMs(modelPid);
  const sequential = await phase<{ full: number[]; decision: number[]; roundTrips: RoundTrips[] }>(system, {
    phase: 'sequential',
    runs: args.runs,
  });
  const cpuAfter = cpuOf(system);
  const modelAfter = cpuMs(modelPid);
  const runs = Math.max(1, args.runs);
  const byProcess = perRun(cpuBefore, cpuAfter, args.runs);

  const batches: Batch[] = [];
  // A batch that fails (a process dying under the load) keeps what was measured before it.
  let failure: string | undefined;
  const measured = async (size: number, evict: boolean) => {
    if (failure) return;
    try {
      batches.push(await batch(system, args, size, evict));
    } catch (err) {
      failure = `the batch of ${size}${evict ? ' (evicted)' : ''}: ${err instanceof Error ? err.message : String(err)}`;
    }
  };
  if (!args.evictedOnly) for (const size of args.paused) await measured(size, false);
  // Runs that wait for days are evicted from the worker's cache: one more batch measures that case.
  if (args.evict && system.evict && args.paused.length > 0) await measured(Math.max(...args.paused), true);

  return {
    system: system.name,
    fullRun: summarize(sequential.full),
    decisionToCompletion: summarize(sequential.decision),
    cpuMsPerRun: Object.values(byProcess).reduce((a, b) => a + b, 0),
    cpuMsPerRunByProcess: byProcess,
    modelCpuMsPerRun: (modelAfter - modelBefore) / runs,
    ...(sequential.roundTrips.length > 0 ? { roundTrips: medianRoundTrips(sequential.roundTrips) } : {}),
    batches,
    ...(failure ? { failure } : {}),
  };
}
