// One bad run never breaks the others (issue 39, item 10): a run whose worker is gone is read within
// the API's bound, from what Temporal holds without a worker, and says the worker is not answering.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call, calls, say } from '../support/fake-model.js';
import { tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

let stack: Stack;
before(async () => {
  // A short bound, so a read of a run nobody answers for gives up soon.
  stack = await startStack({ workerWaitMs: 1_000 });
});
after(() => stack?.close());

const proposal = { from: 'ops', to: 'acme', amount: 1500, memo: 'invoice 9' };

interface Listed {
  runs: { runId: string; status: string; pending: number }[];
}
interface Approvals {
  approvals: { trackingId: string; args: unknown; status: string }[];
}

test('a run whose worker is gone: its detail and the lists answer from Temporal, never waiting for it', async () => {
  const finished = await stack.startRun('bank', 'worker gone: finished', tokens.victor, say('All done.'));
  assert.equal((await stack.result(finished)).status, 'completed');
  const input = 'worker gone: waiting';
  const runId = await stack.startRun(
    'bank',
    input,
    tokens.victor,
    calls(call('transfer', proposal)),
    say('Done.'),
  );
  const [pending] = await stack.waitForPending(runId);
  const trackingId = pending!.trackingId;

  await stack.stopWorker();
  try {
    const run = await stack.http('GET', `/api/runs/${runId}`, { token: tokens.alice });
    assert.equal(run.status, 200, run.text);
    assert.equal(run.body.worker, 'not_answering');
    assert.equal(run.body.runId, runId);
    assert.equal(run.body.agent, 'bank');
    assert.equal(run.body.status, 'waiting');
    assert.equal(run.body.input, input);
    assert.equal(run.body.requester, 'victor');
    assert.deepEqual(
      run.body.pending.map((a: { trackingId: string; args: unknown }) => [a.trackingId, a.args]),
      [[trackingId, proposal]],
    );
    assert.deepEqual(run.body.transcript, []);

    // A finished run is read from its result, which needs no worker: nothing to flag.
    const done = await stack.http('GET', `/api/runs/${finished}`, { token: tokens.alice });
    assert.equal(done.status, 200, done.text);
    assert.equal(done.body.worker, undefined);
    assert.equal(done.body.output, 'All done.');

    // The lists: the runs list reads no run; the list of all approvals shows the memo's pending one.
    const runs = await stack.listUntil<Listed>('/api/runs', tokens.alice, (body) =>
      body.runs.some((r) => r.runId === runId),
    );
    assert.deepEqual(
      runs.runs.filter((r) => r.runId === runId).map((r) => [r.status, r.pending]),
      [['waiting', 1]],
    );
    const all = await stack.listUntil<Approvals>('/api/approvals?status=all', tokens.alice, (body) =>
      body.approvals.some((a) => a.trackingId === trackingId),
    );
    assert.deepEqual(all.approvals.find((a) => a.trackingId === trackingId)!.args, proposal);

    // One approval's schema and decisions come from the workflow alone: a clear 503 to retry.
    const detail = await stack.http('GET', `/api/approvals/${trackingId}`, { token: tokens.alice });
    assert.equal(detail.status, 503, detail.text);
    assert.equal(detail.body.error.code, 'worker_not_answering');
    assert.match(detail.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
  } finally {
    await stack.startWorker();
  }

  // With a worker back, the run is read whole again.
  const back = await waitFor(async () => {
    const answer = await stack.http('GET', `/api/runs/${runId}`, { token: tokens.alice });
    return answer.status === 200 && answer.body.worker === undefined ? answer.body : undefined;
  }, 'the run read through its worker again');
  assert.equal(back.transcript[1].content, input);
  assert.ok(back.turns >= 1);
});
