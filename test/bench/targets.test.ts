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

test('each target is judged on what was measured, against the best durable peer', () => {
  const checks = checkTargets([
    result('countersign-rest', 12, [{ doneMs: 4000, bytesPerPausedRun: 3000 }]),
    result('countersign-signal', 9, [{ doneMs: 6000, afterEviction: true, bytesPerPausedRun: 4200 }]),
    result('langgraph', 3),
    result('openai-agents', 20),
  ]);
  assert.deepEqual(
    checks.map((c) => [c.met, c.measured]),
    [
      [false, '12.0 ms (langgraph 3.0 ms)'],
      [false, 'countersign-rest 4.0 s, countersign-signal (evicted) 6.0 s'],
      [false, 'countersign-rest 2.93 KB, countersign-signal 4.10 KB'],
    ],
  );
});

test('a target whose systems or batches did not run is left out; with no peer, only the 15 ms bound counts', () => {
  const checks = checkTargets([result('countersign-rest', 14, [{ size: 200 }])]);
  assert.deepEqual(
    checks.map((c) => [c.target, c.met]),
    [
      ['REST decision->done p50 under 15 ms', true],
      ['under 4 KB on the server per paused run', true],
    ],
  );
  assert.deepEqual(checkTargets([result('langgraph', 3)]), []);
});
