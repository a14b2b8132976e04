import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Batch, SystemResult } from '../../bench/measure.js';
import { checkTargets } from '../../bench/targets.js';

const summary = (p50: number) => ({ n: 200, p50, p95: p50 * 2, p99: p50 * 3, mean: p50 });

function result(system: string, decisionP50: number, batches: Partial<Batch>[] = []): SystemResult {
  return {
    system,
    fullRun: summary(decisionP50 * 2),
    decisionToCompletion: summary(decisionP50),
    cpuMsPerRun: 1,
    cpuMsPerRunByProcess: {},
    modelCpuMsPerRun: 0,
    batches: batches.map((b) => ({
      size: 1000,
      pausedMs: 1000,
      doneMs: 1000,
      afterEviction: false,
      bytesPerPausedRun: 1000,
      rssPaused: {},
      cpuMsPerRunDone: {},
      ...b,
    })),
  };
}

test("each of issue 44's targets is judged on what was measured side by side", () => {
  const checks = checkTargets([
    result('countersign-rest', 24, [
      { doneMs: 9000, bytesPerPausedRun: 19 * 1024 },
      {
        size: 10_000,
        doneMs: 120_000,
        bytesPerPausedRun: 21 * 1024,
        inboxCpuMsPerSec: { api: 12, temporal: 9, worker: 50 },
        reads: { firstPage: summary(55), detail: summary(9) },
      },
    ]),
    result('countersign-signal', 20, [{ doneMs: 8000, afterEviction: true, bytesPerPausedRun: 18 * 1024 }]),
    result('langgraph', 10),
    result('temporal-openai-agents', 90),
  ]);
  assert.deepEqual(
    checks.map((c) => [c.met, c.target, c.measured]),
    [
      [
        false,
        "REST decision->done p50 at most 25 ms, within 3 ms of the signal's",
        '24.0 ms (signal 20.0 ms)',
      ],
      [false, 'REST decision->done at least 4x faster than temporal-openai-agents', '3.8x (90.0 ms)'],
      [false, 'REST decision->done within 2x of the fastest durable peer', '2.4x (langgraph 10.0 ms)'],
      [
        false,
        'paused runs all done within 10 ms a run of their approvals (1,000 in 10 s)',
        'countersign-rest 1000 9.0 s, countersign-rest 10000 120.0 s, countersign-signal 1000 (evicted) 8.0 s',
      ],
      [
        false,
        'an inbox open over 10000 paused runs: API and server under 20 cpu ms/s together',
        'countersign-rest 10000 21.0',
      ],
      [
        false,
        'the first page of pending approvals with 10000 paused under 50 ms p50 through REST',
        'countersign-rest 10000 55.0 ms',
      ],
      [
        false,
        'under 20 KB on the server per paused run',
        'countersign-rest 1000 19.00 KB, countersign-rest 10000 21.00 KB, countersign-signal 1000 (evicted) 18.00 KB',
      ],
    ],
  );
});

test('targets met are marked met; one whose systems or batches did not run is left out', () => {
  const checks = checkTargets([
    result('countersign-rest', 14, [{ size: 200 }]),
    result('countersign-signal', 12),
    result('temporal-openai-agents', 100),
  ]);
  assert.deepEqual(
    checks.map((c) => [c.target, c.met]),
    [
      ["REST decision->done p50 at most 25 ms, within 3 ms of the signal's", true],
      ['REST decision->done at least 4x faster than temporal-openai-agents', true],
      ['REST decision->done within 2x of the fastest durable peer', true],
      ['under 20 KB on the server per paused run', true],
    ],
  );
  assert.deepEqual(checkTargets([result('langgraph', 3)]), []);
  const page = checkTargets([
    result('countersign-rest', 14, [
      { size: 10_000, reads: { firstPage: summary(45), detail: summary(5) } },
      { size: 1000, reads: { firstPage: summary(80), detail: summary(5) } },
    ]),
  ]).find((c) => c.target.startsWith('the first page'));
  assert.deepEqual([page?.met, page?.measured], [true, 'countersign-rest 10000 45.0 ms']);
});
