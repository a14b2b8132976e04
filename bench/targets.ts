import type { Batch, SystemResult } from './measure.js';

/** Peers whose paused runs survive a crash: the ones a durable runtime is compared with. */
const DURABLE_PEERS = ['langgraph', 'openai-agents', 'temporal-openai-agents'];
const COUNTERSIGN = ['countersign-rest', 'countersign-signal'];

const LATENCY_TARGET_MS = 15;
const BATCH_SIZE = 1000;
const BATCH_TARGET_MS = 5000;
const DISK_TARGET_BYTES = 4096;

export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean;
}

const ms = (v: number) => `${v.toFixed(1)} ms`;
const of = (results: SystemResult[], name: string) => results.find((r) => r.system === name);

/**
 * The project's performance targets, judged on what this run measured; a target whose systems or
 * batches were not run is left out.
 */
export function checkTargets(results: SystemResult[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const rest = of(results, 'countersign-rest');
  const peers = results.filter((r) => DURABLE_PEERS.includes(r.system));
  if (rest) {
    const best = [...peers].sort((a, b) => a.decisionToCompletion.p50 - b.decisionToCompletion.p50)[0];
    const p50 = rest.decisionToCompletion.p50;
    checks.push({
      target: `REST decision->done p50 under ${LATENCY_TARGET_MS} ms${best ? ', and below the best durable peer' : ''}`,
      measured: `${ms(p50)}${best ? ` (${best.system} ${ms(best.decisionToCompletion.p50)})` : ''}`,
      met: p50 < LATENCY_TARGET_MS && (!best || p50 < best.decisionToCompletion.p50),
    });
  }
  const ours = COUNTERSIGN.map((name) => of(results, name)).filter((r) => r !== undefined);
  const batches = (pick: (b: Batch) => boolean) =>
    ours.flatMap((r) => r.batches.filter(pick).map((b) => ({ system: r.system, batch: b })));
  const done = batches((b) => b.size === BATCH_SIZE);
  if (done.length > 0) {
    checks.push({
      target: `${BATCH_SIZE} paused runs all done within ${BATCH_TARGET_MS / 1000} s of their approvals`,
      measured: done
        .map(
          ({ system, batch }) =>
            `${system}${batch.afterEviction ? ' (evicted)' : ''} ${(batch.doneMs / 1000).toFixed(1)} s`,
        )
        .join(', '),
      met: done.every(({ batch }) => batch.doneMs <= BATCH_TARGET_MS),
    });
  }
  const weighed = batches(() => true);
  if (weighed.length > 0) {
    checks.push({
      target: `under ${DISK_TARGET_BYTES / 1024} KB on the server per paused run`,
      measured: weighed
        .map(({ system, batch }) => `${system} ${(batch.bytesPerPausedRun / 1024).toFixed(2)} KB`)
        .join(', '),
      met: weighed.every(({ batch }) => batch.bytesPerPausedRun < DISK_TARGET_BYTES),
    });
  }
  return checks;
}

export function formatTargets(checks: TargetCheck[]): string {
  if (checks.length === 0) return '';
  return [
    'targets:',
    ...checks.map((c) => `  ${c.met ? 'met   ' : 'missed'}  ${c.target}: ${c.measured}`),
  ].join('\n');
}
