import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readExecutions } from './support/executions.js';
import { appliedText } from './support/fault-agents.js';
import { finalView, startPlannedRuns } from './support/fault-runs.js';
import { startFaultStack } from './support/fault-stack.js';
import type { Choice } from './support/invariants.js';
import { seededRandom } from './support/random.js';

const CONTENDERS = 50;

test(`${CONTENDERS} concurrent conflicting decisions on one approval: exactly one wins, the others get 409`, async (t) => {
  const random = seededRandom('conflicting-decisions');
  // A long decision wait: every answer is the workflow's verdict, never a 202.
  const fs = await startFaultStack({ reviewers: 3, decisionWaitMs: 60_000 });
  t.after(() => fs.close());
  const [run] = await startPlannedRuns(fs, random, 1);
  await fs.reviewers[0]!.retry<{ status?: string }>(
    'GET',
    `/api/approvals/${run!.trackingId}`,
    undefined,
    (r) => r.body.status === 'pending',
  );

  const choices: Choice[] = Array.from({ length: CONTENDERS }, () =>
    random.pick(['approve', 'edit', 'reject'] as const),
  );
  const replies = await Promise.all(
    choices.map((choice, i) => {
      const body =
        choice === 'edit'
          ? { type: 'edit', args: { ref: run!.ref, amount: 1000 + i } }
          : choice === 'reject'
            ? { type: 'reject', message: `contender ${i}` }
            : { type: 'approve' };
      // Every contender was shown the first revision. Fifty at once can find Temporal busy (503):
      // a careful client retries under its Idempotency-Key, which can never decide twice.
      return fs.reviewers[i % fs.reviewers.length]!.retry<{ outcome?: { status: string } }>(
        'POST',
        `/api/approvals/${run!.trackingId}/decision`,
        body,
        (reply) => reply.status !== 503,
        { headers: { 'if-match': '"1"', 'idempotency-key': `contender-${i}` } },
      );
    }),
  );

  const statuses = replies.map((r) => r.status);
  const winners = statuses.flatMap((s, i) => (s === 200 ? [i] : []));
  assert.equal(winners.length, 1, `statuses: ${statuses.join(',')}`);
  // After an approve or reject the others find it settled (409); after an edit they were shown a
  // proposal that is no longer the current one (412).
  const losers = statuses.filter((s) => s !== 200);
  assert.equal(losers.length, CONTENDERS - 1);
  assert.ok(
    losers.every((s) => s === 409 || s === 412),
    `statuses: ${statuses.join(',')}`,
  );
  if (choices[winners[0]!] !== 'edit')
    assert.ok(
      losers.every((s) => s === 409),
      `statuses: ${statuses.join(',')}`,
    );

  const winner = winners[0]!;
  const choice = choices[winner]!;
  // The winner's key, sent again: the same request gets the same answer; another body under it is
  // refused (422), and neither decides again.
  const winnerKey = { headers: { 'if-match': '"1"', 'idempotency-key': `contender-${winner}` } };
  const reviewer = fs.reviewers[winner % fs.reviewers.length]!;
  const path = `/api/approvals/${run!.trackingId}/decision`;
  const winningBody =
    choice === 'edit'
      ? { type: 'edit', args: { ref: run!.ref, amount: 1000 + winner } }
      : choice === 'reject'
        ? { type: 'reject', message: `contender ${winner}` }
        : { type: 'approve' };
  const same = await reviewer.retry('POST', path, winningBody, (r) => r.status !== 503, winnerKey);
  assert.equal(same.status, 200);
  const reused = await reviewer.retry(
    'POST',
    path,
    { type: 'reject', message: 'the same key, another body' },
    (r) => r.status !== 503,
    winnerKey,
  );
  assert.equal(reused.status, 422);
  const view = await finalView(fs.reviewers[0]!, run!, Date.now() + 120_000);
  const expected = { approve: 'approved', edit: 'edited', reject: 'rejected' }[choice];
  assert.equal(view.approvalStatus, expected);
  assert.equal(view.status, 'completed');
  const applied = readExecutions(fs.executionsFile).filter((e) => e.kind === 'applied');
  if (choice === 'reject') {
    assert.equal(applied.length, 0);
  } else {
    const amount = choice === 'edit' ? 1000 + winner : run!.amount;
    assert.equal(applied.length, 1);
    assert.equal(applied[0]!.args.amount, amount);
    assert.ok(view.output?.includes(appliedText(run!.ref, amount)));
  }
});
