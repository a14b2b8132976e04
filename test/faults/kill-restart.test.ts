import assert from 'node:assert/strict';
import { test } from 'node:test';
import { unleashChaos } from './support/chaos.js';
import { readExecutions } from './support/executions.js';
import { startFaultStack } from './support/fault-stack.js';
import { decide, finalView, settledInbox, startPlannedRuns } from './support/fault-runs.js';
import { violations, type FinalView } from './support/invariants.js';
import { pool } from './support/pool.js';
import { seededRandom } from './support/random.js';

const RUNS = Number(process.env.FAULT_RUNS ?? 100);
// Rounds of three: every role, the Temporal server included, is killed a third of the time.
const KILLS = Number(process.env.FAULT_KILLS ?? 3 * Math.max(2, Math.ceil(RUNS / 9)));

test(`${RUNS} runs keep their decisions while worker, API and the Temporal server are SIGKILLed ${KILLS} times`, async (t) => {
  const random = seededRandom('kill-restart');
  const fs = await startFaultStack();
  t.after(() => fs.close());
  const reviewer = fs.reviewers[0]!;

  const runs = await startPlannedRuns(fs, random, RUNS);
  const stop = new AbortController();
  const chaos = unleashChaos(
    fs.stack,
    random,
    { kills: KILLS, gapMs: [200, 1500], downMs: [0, 400] },
    stop.signal,
  );
  const delays = runs.map(() => random.int(0, 1500));
  await pool(runs, 4, (run, i) => decide(reviewer, run, delays[i]!));
  const log = await chaos;

  // Everything has had its restart; a run not finished in this long is stuck, not slow.
  const deadline = Date.now() + 180_000;
  const views = new Map<string, FinalView>();
  for (const run of runs) views.set(run.runId, await finalView(reviewer, run, deadline));
  const executions = readExecutions(fs.executionsFile);
  const inbox = await settledInbox(reviewer, runs, Date.now() + 60_000);
  const found = violations(runs, views, executions, inbox);

  const byRole = log.kills.reduce<Record<string, number>>(
    (acc, k) => ({ ...acc, [k.role]: (acc[k.role] ?? 0) + 1 }),
    {},
  );
  t.diagnostic(`kills ${JSON.stringify(byRole)}; decisions ${runs.map((r) => r.choice).join(',')}`);
  t.diagnostic(
    `tool calls: ${executions.filter((e) => e.kind === 'applied').length} applied, ${executions.filter((e) => e.kind === 'deduped').length} deduplicated retries`,
  );
  assert.deepEqual(found, []);
  assert.equal(log.kills.length, KILLS);
  for (const role of ['temporal', 'worker', 'api'] as const) {
    assert.ok((byRole[role] ?? 0) >= Math.floor(KILLS / 3), `${role} was killed ${byRole[role] ?? 0} times`);
    assert.ok(fs.stack.restarts[role] >= (byRole[role] ?? 0), `${role} was not restarted after each kill`);
  }
});
