import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Batch, SystemResult } from '../../bench/measure.js';
import { formatTables } from '../../bench/table.js';

const summary = (p50: number) => ({ n: 50, p50, p95: p50 * 2, p99: p50 * 3, mean: p50 });

function result(system: string, extra: Partial<SystemResult>, batches: Partial<Batch>[] = []): SystemResult {
  return {
    system,
    fullRun: summary(100),
    decisionToCompletion: summary(50),
    cpuMsPerRun: 10,
    cpuMsPerRunByProcess: {},
    modelCpuMsPerRun: 1,
    batches: batches.map((b) => ({
      size: 10_000,
      pausedMs: 1000,
      doneMs: 1000,
      afterEviction: false,
      bytesPerPausedRun: 22 * 1024,
      rssPaused: {},
      cpuMsPerRunDone: {},
      ...b,
    })),
    ...extra,
  };
}

/** The cells of the row that starts with `system` in the table whose header has `column`. */
function row(text: string, column: string, system: string): Record<string, string> {
  const table = text.split('\n\n').find((part) => part.split('\n')[0]!.includes(column))!;
  const [header, , ...rows] = table.split('\n');
  const names = header!.trim().split(/\s{2,}/);
  const cells = rows
    .find((r) => r.startsWith(system))!
    .trim()
    .split(/\s{2,}/);
  return Object.fromEntries(names.map((name, i) => [`${i}:${name}`, cells[i]!]));
}

test('round trips are printed beside the times; a count a system has not is a dash', () => {
  const text = formatTables(
    [
      result('countersign-signal', {
        roundTrips: { workflowTasks: 3, activities: 2, localActivities: 0, messages: 1, writes: 9 },
      }),
      result('langgraph', { roundTrips: { writes: 4 } }),
      result('openai-agents', {}),
    ],
    undefined,
  );
  const pick = (r: Record<string, string>) => [
    r['5:decision->done p50'],
    r['9:wf tasks'],
    r['10:activities'],
    r['11:local acts'],
    r['12:signals+updates'],
    r['13:writes'],
  ];
  assert.deepEqual(pick(row(text, 'wf tasks', 'countersign-signal')), ['50.0', '3', '2', '0', '1', '9']);
  assert.deepEqual(pick(row(text, 'wf tasks', 'langgraph')), ['50.0', '-', '-', '-', '-', '4']);
  assert.deepEqual(pick(row(text, 'wf tasks', 'openai-agents')), ['50.0', '-', '-', '-', '-', '-']);
});

test("a paused batch's bytes split and a reviewer's reads get a table of their own", () => {
  const text = formatTables(
    [
      result('countersign-rest', {}, [
        {
          serverBytes: {
            sampled: 100,
            history: 6 * 1024,
            memo: 1024,
            searchAttributes: 512,
            server: 14.5 * 1024,
          },
          reads: { firstPage: summary(40), detail: summary(8) },
        },
        {
          afterEviction: true,
          serverBytes: { sampled: 100, history: 0, memo: 0, searchAttributes: 0, server: 0 },
        },
      ]),
      result('langgraph', {}, [{ size: 200 }]),
    ],
    undefined,
  );
  assert.deepEqual(Object.values(row(text, 'memo KB', 'countersign-rest')), [
    'countersign-rest',
    '10000',
    '22.00',
    '6.00',
    '1.00',
    '0.50',
    '14.50',
    '40.0',
    '80.0',
    '8.00',
    '16.0',
  ]);
  assert.match(text, /^countersign-rest +10000 \(evicted\) +22\.00 .* +- +- +- +-$/m);
  assert.ok(!text.split('\n\n').at(-1)!.includes('langgraph'), 'a batch with neither has no row');
});
