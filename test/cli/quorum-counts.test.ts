// Issue 40: after a decision the CLI says where the approval stands as the inbox does, one count per
// requirement (`admin or treasurer: 1 of 2`), never a sum that does not add up (`edited (3/2
// approvals)` after an edit into a stricter tier).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../define/index.js';
import { requirementLines, type ApprovalView } from '../../protocol/index.js';
import { tokens } from '../support/api-agents.js';
import { call, calls, say } from '../support/fake-model.js';
import { runCli } from '../support/run-cli.js';
import { startStack, type Stack } from '../support/stack.js';

/** Over 1,000 a payment needs an admin; over 100,000, two of admin or treasurer. */
const pay = defineTool({
  name: 'pay',
  description: 'Pay a supplier.',
  parameters: z.object({ supplier: z.string().min(1), amount: z.number().positive() }),
  approval: {
    when: {
      if: { arg: 'amount', op: 'gt', value: 100_000 },
      then: { approve: { name: 'large payment', approvers: ['admin', 'treasurer'], requiredApprovals: 2 } },
      else: { if: { arg: 'amount', op: 'gt', value: 1000 }, then: 'approve', else: 'auto' },
    },
    decisions: ['approve', 'edit', 'reject'],
    editableFields: ['amount'],
    approvers: ['admin'],
  },
  async execute(args) {
    return { paid: args.amount };
  },
});

const payments = defineAgent({
  name: 'payments',
  description: 'Pays suppliers.',
  instructions: 'You pay suppliers.',
  tools: [pay],
});

let stack: Stack;
before(async () => {
  stack = await startStack({ agents: [payments] });
});
after(() => stack?.close());

async function cli(token: string, args: string[]): Promise<string> {
  const result = await runCli(args, { ...process.env, COUNTERSIGN_URL: stack.url, COUNTERSIGN_TOKEN: token });
  assert.equal(result.code, 0, `countersign ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

const approvalOf = async (trackingId: string) =>
  (await stack.http<ApprovalView>('GET', `/api/approvals/${trackingId}`, { token: tokens.alice })).body;

/** The lines the CLI prints under its outcome: each requirement's count, as the inbox shows them. */
const counts = (view: ApprovalView) => requirementLines(view).map((line) => `  ${line}`);

test('an edit into a stricter tier, then the second approval: each requirement counted as the inbox does', async () => {
  const runId = await stack.startRun(
    'payments',
    'cli: counts',
    tokens.victor,
    calls(call('pay', { supplier: 'acme', amount: 2500 })),
    say('Paid.'),
  );
  const [pending] = await stack.waitForPending(runId);
  const id = pending!.trackingId;

  const edited = await cli(tokens.alice, ['edit', id, '--args', '{"amount":150000}']);
  const raised = await approvalOf(id);
  assert.equal(raised.status, 'pending');
  assert.equal(raised.requirements.length, 2);
  assert.deepEqual(edited.trimEnd().split('\n'), [`${id}: pending on revision 2`, ...counts(raised)]);
  assert.match(edited, /\n {2}admin or treasurer: 1 of 2 \(large payment: /);

  const approved = await cli(tokens.bob, ['approve', id]);
  const settled = await approvalOf(id);
  assert.equal(settled.status, 'edited');
  assert.deepEqual(approved.trimEnd().split('\n'), [`${id}: edited on revision 2`, ...counts(settled)]);
  assert.match(approved, /\n {2}admin or treasurer: 2 of 2 \(met\)/);
  assert.doesNotMatch(approved, /approvals\)/);
  assert.equal((await stack.result(runId)).status, 'completed');
});

test('a decision one sign-off settles prints no counts', async () => {
  const runId = await stack.startRun(
    'payments',
    'cli: one sign-off',
    tokens.victor,
    calls(call('pay', { supplier: 'acme', amount: 2500 })),
    say('Paid.'),
  );
  const [pending] = await stack.waitForPending(runId);
  const out = await cli(tokens.alice, ['approve', pending!.trackingId]);
  assert.equal(out.trimEnd(), `${pending!.trackingId}: approved on revision 1`);
});
