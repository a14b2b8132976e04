import type { Batch, SystemResult } from './measure.js';

/** Peers whose paused runs survive a crash: the ones a durable runtime is compared with. */
const DURABLE_PEERS = ['langgraph', 'mastra', 'openai-agents', 'temporal-openai-agents'];
const COUNTERSIGN = ['countersign-rest', 'countersign-signal'];

/** Issue 44's targets. */
const REST_P50_MS = 25;
const REST_OVER_SIGNAL_MS = 3;
const OVER_TEMPORAL_AGENTS = 4;
const OVER_BEST_PEER = 2;
/** 1,000 paused runs done within 10 s of their approvals, 10,000 within 100 s: 10 ms a run. */
const DONE_MS_PER_RUN = 10;
const INBOX_BATCH = 10_000;
const INBOX_CPU_MS_PER_S = 20;
const FIRST_PAGE_P50_MS = 50;
const DISK_TARGET_BYTES = 20 * 1024;

export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean;
}

const ms = (v: number) => `${v.toFixed(1)} ms`;
const of = (results: SystemResult[], name: string) => results.find((r) => r.system === name);
const p50 = (r: SystemResult) => r.decisionToCompletion.p50;

/**
 * The project's performance targets (issue 44), judged on what this run measured, side by side; a
 * target whose systems or batches were not run is left out.
 */
export function checkTargets(results: SystemResult[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const rest = of(results, 'countersign-rest');
  const signal = of(results, 'countersign-signal');
  if (rest) {
    checks.push({
      target: `REST decision->done p50 at most ${REST_P50_MS} ms${signal ? `, within ${REST_OVER_SIGNAL_MS} ms of the signal's` : ''}`,
      measured: `${ms(p50(rest))}${signal ? ` (signal ${ms(p50(signal))})` : ''}`,
      met: p50(rest) <= REST_P50_MS && (!signal || p50(rest) - p50(signal) <= REST_OVER_SIGNAL_MS),
    });
    const temporalAgents = of(results, 'temporal-openai-agents');
    if (temporalAgents)
      checks.push({
        target: `REST decision->done at least ${OVER_TEMPORAL_AGENTS}x faster than temporal-openai-agents`,
        measured: `${(p50(temporalAgents) / p50(rest)).toFixed(1)}x (${ms(p50(temporalAgents))})`,
        met: p50(temporalAgents) >= OVER_TEMPORAL_AGENTS * p50(rest),
      });
    const best = results.filter((r) => DURABLE_PEERS.includes(r.system)).sort((a, b) => p50(a) - p50(b))[0];
    if (best)
      checks.push({
        target: `REST decision->done within ${OVER_BEST_PEER}x of the fastest durable peer`,
        measured: `${(p50(rest) / p50(best)).toFixed(1)}x (${best.system} ${ms(p50(best))})`,
        met: p50(rest) <= OVER_BEST_PEER * p50(best),
      });
  }
  const ours = COUNTERSIGN.map((name) => of(results, name)).filter((r) => r !== undefined);
  const batches = (pick: (b: Batch) => boolean) =>
    ours.flatMap((r) => r.batches.filter(pick).map((b) => ({ system: r.system, batch: b })));
  const label = (system: string, batch: Batch) =>
    `${system} ${batch.size}${batch.afterEviction ? ' (evicted)' : ''}`;
  const done = batches((b) => b.size >= 1000);
  if (done.length > 0)
    checks.push({
      target: `paused runs all done within ${DONE_MS_PER_RUN} ms a run of their approvals (1,000 in 10 s)`,
      measured: done
        .map(({ system, batch }) => `${label(system, batch)} ${(batch.doneMs / 1000).toFixed(1)} s`)
        .join(', '),
      met: done.every(({ batch }) => batch.doneMs <= DONE_MS_PER_RUN * batch.size),
    });
  const inboxes = batches((b) => b.size >= INBOX_BATCH && b.inboxCpuMsPerSec !== undefined);
  if (inboxes.length > 0) {
    const cost = (b: Batch) => (b.inboxCpuMsPerSec?.api ?? 0) + (b.inboxCpuMsPerSec?.temporal ?? 0);
    checks.push({
      target: `an inbox open over ${INBOX_BATCH} paused runs: API and server under ${INBOX_CPU_MS_PER_S} cpu ms/s together`,
      measured: inboxes
        .map(({ system, batch }) => `${label(system, batch)} ${cost(batch).toFixed(1)}`)
        .join(', '),
      met: inboxes.every(({ batch }) => cost(batch) < INBOX_CPU_MS_PER_S),
    });
  }
  const pages = batches((b) => b.size >= INBOX_BATCH && b.reads !== undefined);
  if (pages.length > 0)
    checks.push({
      target: `the first page of pending approvals with ${INBOX_BATCH} paused under ${FIRST_PAGE_P50_MS} ms p50 through REST`,
      measured: pages
        .map(({ system, batch }) => `${label(system, batch)} ${ms(batch.reads!.firstPage.p50)}`)
        .join(', '),
      met: pages.every(({ batch }) => batch.reads!.firstPage.p50 < FIRST_PAGE_P50_MS),
    });
  const weighed = batches(() => true);
  if (weighed.length > 0)
    checks.push({
      target: `under ${DISK_TARGET_BYTES / 1024} KB on the server per paused run`,
      measured: weighed
        .map(
          ({ system, batch }) => `${label(system, batch)} ${(batch.bytesPerPausedRun / 1024).toFixed(2)} KB`,
        )
        .join(', '),
      met: weighed.every(({ batch }) => batch.bytesPerPausedRun < DISK_TARGET_BYTES),
    });
  return checks;
}

export function formatTargets(checks: TargetCheck[]): string {
  if (checks.length === 0) return '';
  return [
    'targets:',
    ...checks.map((c) => `  ${c.met ? 'met   ' : 'missed'}  ${c.target}: ${c.measured}`),
  ].join('\n');
}
