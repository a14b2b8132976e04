import { pool } from '../faults/support/pool.js';
import { tokens } from './api-agents.js';
import { call, calls, say } from './fake-model.js';
import type { Stack } from './stack.js';

/**
 * Starts `count` bank runs through the API, each waiting on one transfer approval, a few at a time,
 * and waits until the pending list (one page of up to 1,000 runs) shows them all. Returns their
 * run ids.
 */
export async function pausedTransfers(stack: Stack, label: string, count: number): Promise<string[]> {
  const runIds = await pool(
    Array.from({ length: count }, (_, i) => `${label} ${i}`),
    8,
    (input) =>
      stack.startRun(
        'bank',
        input,
        tokens.victor,
        calls(call('transfer', { from: 'ops', to: 'acme', amount: 1500 })),
        say(`Finished ${input}.`),
      ),
  );
  await stack.listUntil<{ approvals: { runId: string }[] }>(
    '/api/approvals?status=pending&limit=1000',
    tokens.alice,
    (body) => runIds.every((runId) => body.approvals.some((a) => a.runId === runId)),
  );
  return runIds;
}
