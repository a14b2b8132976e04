// Issue 40: the CLI shows the policy's rule in words ("amount over $1,000 and at most $100,000"),
// and before it sends an edit into a tier that the approvers who exist cannot meet, it says so.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ApprovalView } from '../../protocol/index.js';
import { tokens } from '../support/api-agents.js';
import { call, calls, say } from '../support/fake-model.js';
import { runCli } from '../support/run-cli.js';
import { startStack, type Stack } from '../support/stack.js';
import { tieredPayments } from '../support/tiered-payments.js';

const payments = tieredPayments('Pay ${{amount}} to {{supplier}}');

let stack: Stack;
before(async () => {
  stack = await startStack({ agents: [payments] });
});
after(() => stack?.close());

async function cli(args: string[]) {
  const result = await runCli(args, {
    ...process.env,
    COUNTERSIGN_URL: stack.url,
    COUNTERSIGN_TOKEN: tokens.alice,
  });
  assert.equal(result.code, 0, `countersign ${args.join(' ')}: ${result.stderr}`);
  return result;
}

async function pendingPayment(input: string, amount: number): Promise<string> {
  const runId = await stack.startRun(
    'payments',
    input,
    tokens.victor,
    calls(call('pay', { supplier: 'acme', amount })),
    say('Paid.'),
  );
  const [pending] = await stack.waitForPending(runId);
  return pending!.trackingId;
}

const WARNING =
  'Warning: large payment (pay: amount over $100,000) needs 2 approvers with role treasurer; only 1 exists. The edit is sent anyway.';

test('an approval shows the rule that asked in words, with money as money', async () => {
  const id = await pendingPayment('cli words: show', 2500);
  const { stdout } = await cli(['approvals', 'show', id]);
  assert.match(stdout, /\n {4}admin: 0 of 1 \(pay: amount over \$1,000 and at most \$100,000\)\n/);
  assert.doesNotMatch(stdout, /amount >|not \(/);
});

test('an edit into a tier nobody can meet is warned of before it is sent, and still sent', async () => {
  const id = await pendingPayment('cli words: unmeetable edit', 2500);
  const { stdout, stderr } = await cli(['edit', id, '--args', '{"amount":150000}']);
  assert.equal(stderr.trim(), WARNING);
  // Sent all the same: the run took it, and now waits for a second treasurer nobody can be.
  assert.match(stdout, new RegExp(`^${id.replace(/\./g, '\\.')}: pending on revision 2\n`));
  assert.match(stdout, /treasurer: 0 of 2 \(large payment: pay: amount over \$100,000\)/);
  const view = (await stack.http<ApprovalView>('GET', `/api/approvals/${id}`, { token: tokens.alice })).body;
  assert.equal(view.revision, 2);
  assert.equal(view.args.amount, 150_000);
});

test('an edit that stays in a tier the approvers can meet is sent without a warning', async () => {
  const id = await pendingPayment('cli words: meetable edit', 2500);
  const { stdout, stderr } = await cli(['edit', id, '--args', '{"amount":4000}']);
  assert.equal(stderr, '');
  assert.equal(stdout.trim(), `${id}: edited on revision 2`);
});
