import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseBenchArgs } from '../../bench/lib/args.js';
import type { SystemResult } from '../../bench/measure.js';
import { checkTargets } from '../../bench/targets.js';

const summary = (p50: number) => ({ n: 30, p50, p95: p50 * 2, p99: p50 * 3, mean: p50 });

function result(system: string, decisionP50: number): SystemResult {
  return {
    system,
    fullRun: summary(decisionP50 * 2),
    decisionToCompletion: summary(decisionP50),
    cpuMsPerRun: 1,
    cpuMsPerRunByProcess: {},
    modelCpuMsPerRun: 0,
    batches: [],
  };
}

test('the benchmark runs Mastra as a peer when asked', () => {
  assert.deepEqual(parseBenchArgs(['--systems', 'mastra,langgraph']).systems, ['mastra', 'langgraph']);
  assert.ok(parseBenchArgs([]).systems.includes('mastra'));
});

test('Mastra is a durable peer: the fastest one measured is the one Countersign is held to', () => {
  const best = checkTargets([
    result('countersign-rest', 12),
    result('mastra', 5),
    result('langgraph', 8),
  ]).find((c) => c.target === 'REST decision->done within 2x of the fastest durable peer');
  assert.deepEqual(best, {
    target: 'REST decision->done within 2x of the fastest durable peer',
    measured: '2.4x (mastra 5.0 ms)',
    met: false,
  });
});
