import type { SystemResult } from './measure.js';
import type { Summary } from './lib/stats.js';

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(v < 10 ? 2 : 1) : '-');
const mb = (v: number | undefined) =>
  v === undefined || !Number.isFinite(v) ? '-' : (v / 1048576).toFixed(0);
const kb = (v: number) => (Number.isFinite(v) ? (v / 1024).toFixed(2) : '-');
const count = (v: number | undefined) => (v === undefined ? '-' : String(v));

/** `temporal 12.3, worker 4.56`, or `-` where nothing was measured. */
const perProcess = (values: Record<string, number> | undefined, format: (v: number) => string) =>
  values
    ? Object.entries(values)
        .map(([label, v]) => `${label} ${format(v)}`)
        .join(', ')
    : '-';

function render(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** The figures a reader compares, one row per system; everything else is in the JSON. */
export function formatTables(results: SystemResult[], floor: Summary | undefined): string {
  const parts: string[] = [];
  if (floor)
    parts.push(
      `floor: fake model round trip via the openai client p50 ${ms(floor.p50)} ms, p95 ${ms(floor.p95)} ms (n=${floor.n})`,
    );
  parts.push(
    render(
      [
        'system',
        'runs',
        'full p50',
        'p95',
        'p99',
        'decision->done p50',
        'p95',
        'cpu ms/run',
        '(model)',
        'wf tasks',
        'activities',
        'local acts',
        'signals+updates',
        'writes',
      ],
      results.map((r) => [
        r.system,
        String(r.fullRun.n),
        ms(r.fullRun.p50),
        ms(r.fullRun.p95),
        ms(r.fullRun.p99),
        ms(r.decisionToCompletion.p50),
        ms(r.decisionToCompletion.p95),
        ms(r.cpuMsPerRun),
        ms(r.modelCpuMsPerRun),
        count(r.roundTrips?.workflowTasks),
        count(r.roundTrips?.activities),
        count(r.roundTrips?.localActivities),
        count(r.roundTrips?.messages),
        count(r.roundTrips?.writes),
      ]),
    ),
  );
  parts.push(
    'round trips between decision and done, median per run: on Temporal, read from the history ' +
      '(writes: the batches appended to it); for a peer in one process, the writes to its store',
  );
  const batchRows = results.flatMap((r) =>
    r.batches.map((b) => [
      r.system,
      String(b.size),
      ms(b.pausedMs),
      ms(b.doneMs) + (b.afterEviction ? ' (evicted)' : ''),
      perProcess(b.cpuMsPerRunDone, ms),
      perProcess(b.idleCpuMsPerSec, ms),
      perProcess(b.inboxCpuMsPerSec, ms),
      kb(b.bytesPerPausedRun),
      perProcess(b.rssPaused, mb),
      perProcess(b.rssEvicted, mb),
    ]),
  );
  parts.push(
    render(
      [
        'system',
        'paused',
        'all paused ms',
        'all done ms',
        'cpu ms/run approving',
        'idle cpu ms/s',
        'inbox open cpu ms/s',
        'KB/paused run',
        'RSS MB paused',
        'RSS MB evicted',
      ],
      batchRows,
    ),
  );
  const paused = results.flatMap((r) =>
    r.batches
      .filter((b) => b.serverBytes || b.reads)
      .map((b) => [
        r.system,
        String(b.size) + (b.afterEviction ? ' (evicted)' : ''),
        kb(b.bytesPerPausedRun),
        b.serverBytes ? kb(b.serverBytes.history) : '-',
        b.serverBytes ? kb(b.serverBytes.memo) : '-',
        b.serverBytes ? kb(b.serverBytes.searchAttributes) : '-',
        b.serverBytes ? kb(b.serverBytes.server) : '-',
        b.reads ? ms(b.reads.firstPage.p50) : '-',
        b.reads ? ms(b.reads.firstPage.p95) : '-',
        b.reads ? ms(b.reads.detail.p50) : '-',
        b.reads ? ms(b.reads.detail.p95) : '-',
      ]),
  );
  if (paused.length > 0)
    parts.push(
      render(
        [
          'system',
          'paused',
          'KB/paused run',
          'history KB',
          'memo KB',
          'search attrs KB',
          "server's own KB",
          'first page p50 ms',
          'p95',
          'run detail p50 ms',
          'p95',
        ],
        paused,
      ),
    );
  return parts.join('\n\n');
}
