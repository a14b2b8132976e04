// Issue 39, item 9: the page an email link opens, where the approver clicks Approve, marks
// bidirectional controls and invisible characters as the email, the inbox and the CLI do.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { confirmPage, messagePage, secretLinkPage } from '../../api/link-pages.js';
import type { ApprovalView } from '../../protocol/index.js';
import { call, calls, say } from '../support/fake-model.js';
import { tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';
import { linkIn, outboxMail } from './mailbox.js';

/** Each control as it arrives, and as it must be shown: its JSON escape, seen and never obeyed. */
const CONTROLS = {
  'RIGHT-TO-LEFT OVERRIDE': ['\u202e', '\\u202e'],
  'LEFT-TO-RIGHT ISOLATE': ['\u2066', '\\u2066'],
  'POP DIRECTIONAL ISOLATE': ['\u2069', '\\u2069'],
  'ZERO WIDTH SPACE': ['\u200b', '\\u200b'],
  ESC: ['\u001b', '\\u001b'],
} as const;
const hostile = Object.values(CONTROLS)
  .map(([raw]) => raw)
  .join('x');
const marked = Object.values(CONTROLS)
  .map(([, escape]) => escape)
  .join('x');

function assertMarked(html: string, where: string): void {
  for (const [name, [raw, escape]] of Object.entries(CONTROLS)) {
    assert.equal(html.includes(raw), false, `${where} carries a raw ${name}`);
    assert.ok(html.includes(escape), `${where} does not mark ${name}`);
  }
}

const proposal = (overrides: Partial<ApprovalView>): ApprovalView => ({
  trackingId: 'run-1.1',
  runId: 'run-1',
  agent: `bank${hostile}`,
  kind: 'call',
  tool: `transfer${hostile}`,
  toolCallId: 'c1',
  args: { to: `acme${hostile}`, amount: 20 },
  description: `Transfer 20 to acme${hostile}`,
  schema: {},
  allowedDecisions: ['approve', 'reject'],
  approvers: ['admin'],
  requiredApprovals: 1,
  requirements: [{ roles: ['admin'], count: 1, reason: 'transfer: its policy' }],
  revision: 1,
  approvals: [],
  allowSelfApproval: false,
  requestedAt: '2025-01-01T00:00:00.000Z',
  deadline: '2025-01-02T00:00:00.000Z',
  onTimeout: { action: 'reject' },
  escalated: false,
  status: 'pending',
  ...overrides,
});

test('every text of the proposal on a confirmation page is marked: agent, tool, description, arguments', () => {
  for (const action of ['approve', 'reject'] as const) {
    const html = confirmPage(proposal({}), action, 'Alice', 'https://inbox.example/#/approvals/run-1.1');
    assertMarked(html, `the ${action} page`);
    assert.ok(html.includes(`&quot;to&quot;: &quot;acme${marked}&quot;`), html);
  }
});

test('a plan step, an unknown outcome, a secret and a message page are marked too', () => {
  const plan = confirmPage(
    proposal({
      kind: 'plan',
      plan: [{ tool: `deploy${hostile}`, args: { service: `api${hostile}` } }],
    }),
    'approve',
    'Alice',
    'https://inbox.example/',
  );
  assertMarked(plan, 'the plan page');
  assert.ok(plan.includes(`1. deploy${marked} {`), plan);
  const outcome = confirmPage(
    proposal({
      kind: 'outcome',
      attempt: { attempt: 1, reason: `cut off${hostile}`, progress: { step: `half${hostile}`, at: 'now' } },
    }),
    'reject',
    'Alice',
    'https://inbox.example/',
  );
  assertMarked(outcome, 'the outcome page');
  const secret = secretLinkPage(
    { trackingId: 'run-1.1', tool: `run_report${hostile}`, secret: { name: 'pw', label: `pw${hostile}` } },
    'https://inbox.example/',
  );
  assertMarked(secret, 'the secret page');
  // A refusal may quote the arguments (a changed proposal's diff): a message page marks them.
  assertMarked(messagePage(`Changed${hostile}`, `to: "acme${hostile}"`), 'a message page');
});

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(() => stack?.close());

test('the page a mailed Approve link opens marks the controls in the arguments', async () => {
  const args = { from: `ops${hostile}`, to: 'acme', amount: 20, memo: `ok${hostile}` };
  const runId = await stack.startRun(
    'bank',
    'links: hostile text',
    tokens.victor,
    calls(call('transfer', args)),
    say('ok'),
  );
  const [pending] = await stack.waitForPending(runId);
  const mail = await outboxMail(stack.dataDir, pending!.trackingId, 'alice');
  const page = await fetch(linkIn(mail, 'Approve'));
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /<form method="post">/);
  assertMarked(html, 'the confirmation page');
  assert.ok(html.includes(`Transfer 20 from ops${marked} to acme`), html);
  assert.ok(html.includes(`&quot;memo&quot;: &quot;ok${marked}&quot;`), html);
  await stack.client.workflow.getHandle(runId).cancel();
});
