// What an approver sees and types in the inbox, in Chromium at 1280×900: the decision controls in
// the first screenful beside the arguments, the rule that asked, the edited call everywhere after
// an edit, invalid values shown as invalid, plan steps as readable multi-line text, direction
// controls marked, a cancel recorded with its channel, and a run paused and resumed with a correction.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../define/index.js';
import { openInbox, openRun } from '../support/chromium.js';
import { call, calls, say } from '../support/fake-model.js';
import { apiTestAgents, tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';

const VIEWPORT = { width: 1280, height: 900 };

/** Side effects of this file's tools, per run. */
const ran: { runId: string; tool: string; args: Record<string, unknown> }[] = [];

/** A tiered payment: over 1,000 it needs a human of the `large payment` tier. */
const pay = defineTool({
  name: 'pay',
  description: 'Pay a supplier.',
  parameters: z.object({
    supplier: z.string().min(1),
    amount: z.number().positive().max(1_000_000),
    note: z.string().max(500).optional(),
  }),
  approval: {
    when: {
      if: { arg: 'amount', op: 'gt', value: 1000 },
      then: { approve: { name: 'large payment', approvers: ['admin', 'treasurer'] } },
      else: 'auto',
    },
    decisions: ['approve', 'edit', 'reject', 'respond'],
    editableFields: ['amount', 'note'],
    description: 'Pay {{amount}} to {{supplier}}',
    approvers: ['admin'],
  },
  async execute(args, context) {
    ran.push({ runId: context.runId, tool: 'pay', args });
    return { paid: args.amount, to: args.supplier };
  },
});

const payments = defineAgent({
  name: 'payments',
  description: 'Pays suppliers.',
  instructions: 'You pay suppliers.',
  tools: [pay],
});

const runQuery = defineTool({
  name: 'run_query',
  description: 'Run a read-only SQL query.',
  parameters: z.object({ sql: z.string().min(1) }),
  approval: { approvers: ['admin'] },
  async execute(args, context) {
    ran.push({ runId: context.runId, tool: 'run_query', args });
    return { rows: [] };
  },
});

const analyst = defineAgent({
  name: 'analyst',
  description: 'Queries the sales database.',
  instructions: 'You analyse sales.',
  planReview: true,
  tools: [runQuery],
});

let stack: Stack;
let browser: Browser;
let page: Page;

before(async () => {
  stack = await startStack({ agents: [...apiTestAgents, payments, analyst] });
  ({ browser, page } = await openInbox(stack.url, tokens.alice, VIEWPORT));
});

after(async () => {
  await browser?.close();
  await stack?.close();
});

const approvalLink = (trackingId: string) =>
  page.locator(`a[href="#/approvals/${encodeURIComponent(trackingId)}"]`);

/** Starts a payment run (requested by victor) and opens its approval from the inbox. */
async function openPayment(input: string, args: Record<string, unknown>) {
  await page.goto(`${stack.url}/#/`);
  await page.getByRole('heading', { name: 'Waiting for a decision' }).waitFor();
  const runId = await stack.startRun(
    'payments',
    input,
    tokens.victor,
    calls(call('pay', args)),
    say('Paid.'),
  );
  const [pending] = await stack.waitForPending(runId);
  const trackingId = pending!.trackingId;
  const card = approvalLink(trackingId);
  // These tests are about the views; live arrival is inbox.test.ts's. A card the live stream has not
  // brought yet is read from the list afresh.
  await card.waitFor({ timeout: 10_000 }).catch(async () => {
    await page.reload();
    await card.waitFor();
  });
  const cardText = (await card.textContent()) ?? '';
  await card.click();
  await page.getByRole('heading', { name: /pay/ }).waitFor();
  return { runId, trackingId, cardText };
}

/** The box of an element, asserted to lie wholly inside the first viewport. */
// A live event re-renders the view, and an element measured as it is replaced has no box: measure the
// one shown now. One never shown times out in the wait.
async function shownBox(locator: Locator) {
  for (;;) {
    await locator.waitFor({ state: 'visible' });
    const box = await locator.boundingBox();
    if (box) return box;
  }
}

async function inFirstScreen(locator: Locator, what: string) {
  const box = await shownBox(locator);
  assert.ok(
    box.x >= 0 && box.y >= 0 && box.x + box.width <= VIEWPORT.width && box.y + box.height <= VIEWPORT.height,
    `${what} is outside the first ${VIEWPORT.width}×${VIEWPORT.height} screen: ${JSON.stringify(box)}`,
  );
  return box;
}

const overlaps = (
  a: { x: number; y: number; width: number; height: number },
  b: { x: number; y: number; width: number; height: number },
) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

test('at 1280×900, Approve and Reject are in the first screen beside the arguments, under the rule that asked', async () => {
  const { trackingId, cardText } = await openPayment('approver view: layout', {
    supplier: 'acme',
    amount: 2500,
  });
  // The inbox card said who asked for the run.
  assert.match(cardText, /requested by victor/);
  assert.equal(await page.evaluate('window.scrollY'), 0);
  const approve = await inFirstScreen(page.getByRole('button', { name: 'Approve', exact: true }), 'Approve');
  const reject = await inFirstScreen(page.getByRole('button', { name: 'Reject', exact: true }), 'Reject');
  const amount = await inFirstScreen(page.getByLabel(/^amount/), 'the amount field');
  // Beside them, not above or below: the arguments and the buttons share the screen's rows.
  assert.ok(amount.x + amount.width <= approve.x, 'the arguments are left of the decision controls');
  assert.ok(amount.y < reject.y + reject.height && approve.y < amount.y + amount.height);

  // The rule and tier that asked for this approval, as the API states them, next to the buttons.
  const view = (await stack.http('GET', `/api/approvals/${trackingId}`, { token: tokens.alice })).body;
  const [requirement] = view.requirements;
  assert.equal(requirement.tier, 'large payment');
  assert.match(requirement.reason, /amount over 1000/);
  const rule = page.locator('section[aria-label="Decision"] .rule');
  await rule.locator('.why', { hasText: requirement.reason }).waitFor();
  await rule.locator('.tier', { hasText: 'large payment' }).waitFor();
  await rule.locator('.rule-values', { hasText: 'amount is 2500' }).waitFor();
  await inFirstScreen(rule, 'the rule');
});

test('while an edit is typed, the description and the rule show the typed values; reset shows the proposal again', async () => {
  await openPayment('approver view: follow the edit', { supplier: 'acme', amount: 2500 });
  const lede = page.locator('.lede');
  const values = page.locator('section[aria-label="Decision"] .rule .rule-values');
  await lede.filter({ hasText: 'Pay 2500 to acme' }).waitFor();
  await values.filter({ hasText: 'amount is 2500' }).waitFor();
  assert.equal(await lede.locator('.as-edited').count(), 0);

  const amount = page.getByLabel(/^amount/);
  await amount.fill('4000');
  // The description as the policy's template makes it, marked as the edit's.
  await lede.filter({ hasText: 'Pay 4000 to acme' }).waitFor();
  await lede.locator('.as-edited', { hasText: 'with your edit' }).waitFor();
  // The rule that asked, with the typed value, and the proposal's beside it.
  await values.filter({ hasText: 'amount is 4000 (proposed 2500)' }).waitFor();
  await page.locator('section[aria-label="Decision"] .rule .tier', { hasText: 'large payment' }).waitFor();

  // A value that is not valid changes nothing there: the last valid edit stays.
  await amount.fill('-5');
  await page.locator('.diff-box .invalid-value', { hasText: '-5' }).waitFor();
  assert.match((await lede.textContent()) ?? '', /Pay 4000 to acme/);

  await page.getByRole('button', { name: 'Reset to proposed' }).click();
  await lede.filter({ hasText: 'Pay 2500 to acme' }).waitFor();
  assert.equal(await lede.locator('.as-edited').count(), 0);
  await values.filter({ hasText: /^where amount is 2500$/ }).waitFor();
});

test("the approval's audit trail starts with its request, as the run's does", async () => {
  const { runId, trackingId } = await openPayment('approver view: requested', {
    supplier: 'acme',
    amount: 2200,
  });
  const trail = page.locator('section[aria-label="Audit trail"]');
  const requested = trail.locator('.audit li', { hasText: 'approval.requested' });
  await requested.locator('code', { hasText: trackingId }).waitFor();
  assert.equal(await trail.getByText('No entries yet.').count(), 0);
  const detail = (await stack.http('GET', `/api/runs/${runId}`, { token: tokens.alice })).body;
  const entry = detail.audit.find(
    (e: { type: string; trackingId?: string }) =>
      e.type === 'approval.requested' && e.trackingId === trackingId,
  );
  assert.ok(entry, 'the run has no approval.requested entry');
  assert.equal(await requested.locator(`time[datetime="${entry.at}"]`).count(), 1);
});

test('an invalid value is marked invalid in the diff, and the message sits above the buttons', async () => {
  const { trackingId } = await openPayment('approver view: invalid', { supplier: 'acme', amount: 1800 });
  const amount = page.getByLabel(/^amount/);
  await amount.fill('-5');
  const diff = page.locator('.diff-box');
  await diff.locator('.change-invalid .invalid-value', { hasText: '-5' }).waitFor();
  await diff.locator('.invalid-why', { hasText: 'must be more than 0' }).waitFor();
  assert.equal(await diff.locator('ins').count(), 0, 'an invalid value is shown as an accepted change');

  const approve = page.getByRole('button', { name: 'Approve with edits' });
  await approve.click();
  const message = page.getByText('Some arguments are not valid');
  await message.waitFor();
  const messageBox = await shownBox(message);
  const approveBox = await shownBox(approve);
  const rejectBox = await shownBox(page.getByRole('button', { name: 'Reject', exact: true }));
  assert.ok(
    messageBox.y + messageBox.height <= approveBox.y,
    `the message is not above Approve: ${JSON.stringify({ messageBox, approveBox })}`,
  );
  assert.ok(messageBox.y < rejectBox.y, 'the message sits below Reject');
  await inFirstScreen(message, 'the message');
  const status = (await stack.http('GET', `/api/approvals/${trackingId}`, { token: tokens.alice })).body
    .status;
  assert.equal(status, 'pending');

  // A valid value is an ordinary change again.
  await amount.fill('1700');
  await diff.locator('ins', { hasText: '1700' }).waitFor();
  assert.equal(await diff.locator('.invalid-value').count(), 0);
});

test('after an edit: the header, the Decided list and the run view show the edited call, who decided, how and when', async () => {
  const { runId, trackingId } = await openPayment('approver view: edit', { supplier: 'acme', amount: 1500 });
  await page.locator('.lede', { hasText: 'Pay 1500 to acme' }).waitFor();
  await page.getByLabel(/^amount/).fill('1200');
  await page.getByRole('button', { name: 'Approve with edits' }).click();
  await page.locator('section[aria-label="Outcome"] .chip', { hasText: 'edited' }).waitFor();

  // The header names the call that runs, not the one the model proposed.
  await page.locator('.lede', { hasText: 'Pay 1200 to acme' }).waitFor();
  assert.equal(await page.locator('.lede', { hasText: '1500' }).count(), 0);

  // The toast says so without covering the audit trail, or anything else of the page. Measured
  // from its layout box: it may already have faded, and where it shows does not change.
  const toast = page.locator('#toast');
  await toast.filter({ hasText: 'Approved with edits' }).waitFor({ state: 'attached' });
  const toastBox = await toast.evaluate(
    (el: { getBoundingClientRect(): { x: number; y: number; width: number; height: number } }) => {
      const { x, y, width, height } = el.getBoundingClientRect();
      return { x, y, width, height };
    },
  );
  assert.ok(toastBox.width > 0 && toastBox.height > 0, 'the toast takes no room');
  const audit = page.locator('section[aria-label="Audit trail"]');
  await audit.locator('li', { hasText: 'approval.decided' }).first().waitFor();
  assert.equal(await page.evaluate('window.scrollY'), 0);
  const auditBox = await shownBox(audit);
  assert.ok(!overlaps(toastBox, auditBox), 'the toast covers the audit trail');
  const mainBox = await shownBox(page.locator('main'));
  assert.ok(!overlaps(toastBox, mainBox), 'the toast covers the page');

  await stack.result(runId);
  assert.deepEqual(
    ran.filter((r) => r.runId === runId).map((r) => r.args.amount),
    [1200],
  );
  const { outcome } = (await stack.http('GET', `/api/approvals/${trackingId}`, { token: tokens.alice })).body;

  // The Decided list: who, how, when, and the edited description.
  await page.goto(`${stack.url}/#/decided`);
  await page.getByRole('heading', { name: 'Decided' }).waitFor();
  const card = approvalLink(trackingId);
  // These tests are about the views; live arrival is inbox.test.ts's. A card the live stream has not
  // brought yet is read from the list afresh.
  await card.waitFor({ timeout: 10_000 }).catch(async () => {
    await page.reload();
    await card.waitFor();
  });
  await card.locator('.decided-by', { hasText: 'Approved with edits by alice' }).waitFor();
  assert.equal(await card.locator(`.decided-by time[datetime="${outcome.at}"]`).count(), 1);
  assert.ok(((await card.locator('.decided-by time').textContent()) ?? '').trim().length > 0);
  await card.locator('.card-desc', { hasText: 'Pay 1200 to acme' }).waitFor();
  await card.getByText('requested by victor').waitFor();

  // The run view: between the model's call and the tool's result, the human's edit.
  await openRun(page, stack.url, runId);
  await page.getByRole('heading', { name: 'Conversation' }).waitFor();
  const result = page.locator('.msg-tool', { hasText: 'paid' });
  const mark = result.locator('.human-edit');
  await mark.getByText('edited by alice').waitFor();
  await mark.locator('del', { hasText: '1500' }).waitFor();
  await mark.locator('ins', { hasText: '1200' }).waitFor();
  // Page code as source text: this project compiles without DOM types.
  const order = await page.evaluate(`(() => {
    const call = document.querySelector('.msg-assistant .call');
    const edit = document.querySelector('.msg-tool .human-edit');
    const output = edit?.closest('.msg-tool')?.querySelector('pre:last-child');
    if (!call || !edit || !output) return 'missing';
    const after = (a, b) => Boolean(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
    return after(call, edit) && after(edit, output) ? 'between' : 'elsewhere';
  })()`);
  assert.equal(order, 'between');
});

test('a plan card names the plan once; SQL steps read as multi-line text, are edited, approved, and the edited SQL runs', async () => {
  await page.goto(`${stack.url}/#/`);
  await page.getByRole('heading', { name: 'Waiting for a decision' }).waitFor();
  const monthly = 'SELECT month,\n       SUM(total) AS revenue\nFROM orders\nGROUP BY month\nORDER BY month;';
  const customers = 'SELECT name\nFROM customers\nORDER BY spent DESC\nLIMIT 5;';
  const runId = await stack.startRun(
    'analyst',
    'approver view: plan',
    tokens.victor,
    calls(call('run_query', { sql: monthly }), call('run_query', { sql: customers })),
    say('Analysed.'),
  );
  const [pending] = await stack.waitForPending(runId);
  assert.equal(pending!.kind, 'plan');
  const card = approvalLink(pending!.trackingId);
  await card.waitFor();
  const title = (await card.locator('.card-title').textContent()) ?? '';
  assert.doesNotMatch(title, /plan\s*pending\s*plan/i);
  assert.equal(title.match(/plan/gi)?.length ?? 0, 1, `the card title reads ${JSON.stringify(title)}`);
  await card.click();
  await page.getByRole('button', { name: 'Approve plan' }).waitFor();

  // Each step's SQL as the lines it holds, whole: no JSON string, nothing cut off.
  const step1 = page.getByRole('group', { name: /^Step 1:/ }).getByLabel(/^sql/);
  assert.equal(await step1.evaluate((el: { tagName: string }) => el.tagName), 'TEXTAREA');
  assert.equal(await step1.inputValue(), monthly);
  const fits = await step1.evaluate(
    (el: { scrollHeight: number; clientHeight: number }) => el.scrollHeight <= el.clientHeight + 1,
  );
  assert.ok(fits, 'the query is cut off in its box');
  assert.ok(!(await step1.inputValue()).includes('\\n'));

  const edited =
    'SELECT month,\n       SUM(total) AS revenue\nFROM orders\nWHERE year = 2024\nGROUP BY month;';
  await step1.fill(edited);
  await page
    .getByRole('group', { name: /^Step 1:/ })
    .locator('.step-diff ins')
    .first()
    .waitFor();
  await page.getByRole('button', { name: 'Approve edited plan' }).click();
  await page.locator('section[aria-label="Outcome"] .chip', { hasText: 'edited' }).waitFor();
  assert.equal((await stack.result(runId)).status, 'completed');
  assert.deepEqual(
    ran.filter((r) => r.runId === runId).map((r) => r.args.sql),
    [edited, customers],
  );

  // The run view marks the step a human changed, between the model's call and its result.
  await openRun(page, stack.url, runId);
  await page.getByRole('heading', { name: 'Conversation' }).waitFor();
  const marks = page.locator('.msg-tool .human-edit');
  await marks.first().getByText('edited by alice').waitFor();
  assert.equal(await marks.count(), 1);
  await marks.locator('ins', { hasText: 'WHERE year = 2024' }).waitFor();
});

test('a bidirectional override in the run input is marked, not obeyed', async () => {
  const input = 'approver view: pay the invoice \u202efdp.exe\u202c today';
  const { runId } = await openPayment(input, { supplier: 'acme', amount: 3000 });
  const asked = page.locator('section[aria-label="Context"] .asked');
  await asked.waitFor();
  const mark = asked.locator('.bidi-mark').first();
  assert.equal(await mark.textContent(), '\\u202e');
  assert.equal(await asked.locator('.bidi-mark').count(), 2);
  const shown = (await asked.textContent()) ?? '';
  assert.ok(
    !/[\u202a-\u202e\u2066-\u2069]/.test(shown),
    `the override is still in the text: ${JSON.stringify(shown)}`,
  );
  // Seen: the mark takes room on the screen.
  const box = await shownBox(mark);
  assert.ok(box.width > 0 && box.height > 0);

  // The run view's task too.
  await openRun(page, stack.url, runId);
  await page.getByRole('heading', { name: 'Task' }).waitFor();
  await page.locator('.run .bidi-mark', { hasText: '\\u202e' }).first().waitFor();
});

test('a cancel from the inbox is recorded with channel inbox', async () => {
  const runId = await stack.startRun(
    'payments',
    'approver view: cancel',
    tokens.victor,
    calls(call('pay', { supplier: 'acme', amount: 4000 })),
    say('Paid.'),
  );
  await stack.waitForPending(runId);
  await openRun(page, stack.url, runId);
  await page.getByRole('heading', { name: 'Waiting for', exact: true }).waitFor();
  const cancelled = page.waitForResponse((response) =>
    response.url().endsWith(`/api/runs/${encodeURIComponent(runId)}/cancel`),
  );
  await page.getByRole('button', { name: 'Cancel run' }).click();
  assert.equal((await cancelled).status(), 202);
  assert.equal((await stack.result(runId)).status, 'cancelled');
  // The page records it as the run's audit trail has it (read afresh: the live update is tested elsewhere).
  await page.reload();
  const cancelledEntry = page.locator('.audit li', { hasText: 'run.cancelled' });
  await cancelledEntry.getByText(/via inbox/).waitFor();
  await page.locator('h1 .chip', { hasText: 'cancelled' }).waitFor();
  const detail = (await stack.http('GET', `/api/runs/${runId}`, { token: tokens.alice })).body;
  const entry = detail.audit.find((e: { type: string }) => e.type === 'run.cancelled');
  assert.ok(entry, 'no run.cancelled in the audit trail');
  assert.equal(entry.actor, 'alice');
  assert.equal(entry.channel, 'inbox');
});

test("while another run's view loads, the run still shown takes no clicks", async () => {
  const startPayment = async (input: string) => {
    const runId = await stack.startRun(
      'payments',
      input,
      tokens.victor,
      calls(call('pay', { supplier: 'acme', amount: 4000 })),
      say('Paid.'),
    );
    await stack.waitForPending(runId);
    return runId;
  };
  const left = await startPayment('approver view: the run left');
  const asked = await startPayment('approver view: the run asked for');
  await openRun(page, stack.url, left);
  const cancelLeft = page.getByRole('button', { name: 'Cancel run' });
  const box = await shownBox(cancelLeft);

  // The next run's read is held, so the view of the one left stays on screen while it loads.
  const sent: string[] = [];
  const onRequest = (request: { method(): string; url(): string }) => {
    if (request.method() === 'POST') sent.push(new URL(request.url()).pathname);
  };
  page.on('request', onRequest);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const askedRead = (url: URL) => url.pathname.endsWith(`/api/runs/${encodeURIComponent(asked)}`);
  await page.route(
    askedRead,
    async (route) => {
      await held;
      await route.continue();
    },
    { times: 1 },
  );
  try {
    await page.goto(`${stack.url}/#/runs/${encodeURIComponent(asked)}`);
    await page.locator('main[aria-busy="true"]').waitFor();
    await page.locator('h1 code', { hasText: left }).waitFor();
    // A real click where the Cancel button of the run left is shown.
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  } finally {
    release();
  }
  await page.locator('h1 code', { hasText: asked }).waitFor();
  page.off('request', onRequest);

  assert.deepEqual(sent, [], 'a click on the view being left sent a request');
  for (const runId of [left, asked]) {
    const detail = (await stack.http('GET', `/api/runs/${runId}`, { token: tokens.alice })).body;
    assert.equal(detail.status, 'waiting', `${runId} is ${detail.status}`);
  }
});

test('Pause and Resume in the run view: who paused and why shows, and the correction reaches the model', async () => {
  const input = 'approver view: pause and resume';
  const conversation = stack.fake.script(
    input,
    calls(call('pay', { supplier: 'acme', amount: 4000 })),
    say('Paid.'),
  );
  const started = await stack.http('POST', '/api/runs', {
    token: tokens.victor,
    body: { agent: 'payments', input },
  });
  assert.equal(started.status, 201, started.text);
  const runId: string = started.body.runId;
  const [pending] = await stack.waitForPending(runId);
  await openRun(page, stack.url, runId);
  await page.getByRole('heading', { name: 'Waiting for', exact: true }).waitFor();

  await page.getByLabel('Why pause (optional)').fill('is acme the right supplier?');
  const paused = page.waitForResponse((r) =>
    r.url().endsWith(`/api/runs/${encodeURIComponent(runId)}/pause`),
  );
  await page.getByRole('button', { name: 'Pause run' }).click();
  assert.equal((await paused).status(), 202);
  await page.locator('h1 .chip', { hasText: 'paused' }).waitFor();
  await page
    .locator('.paused-by', { hasText: 'Paused by alice via inbox' })
    .getByText(/is acme the right supplier\?/)
    .waitFor();
  // Paused, the Pause control is gone and Cancel stays.
  assert.equal(await page.getByRole('button', { name: 'Pause run' }).count(), 0);
  assert.equal(await page.getByRole('button', { name: 'Cancel run' }).count(), 1);

  // Decided while paused: the call waits for the resume.
  const approved = await stack.http('POST', `/api/approvals/${pending!.trackingId}/decision`, {
    token: tokens.alice,
    body: { type: 'approve' },
  });
  assert.equal(approved.status, 200, approved.text);
  assert.equal(ran.filter((r) => r.runId === runId).length, 0, 'nothing runs while paused');

  await page.getByLabel(/Correction for the agent/).fill('Tell the requester the payment went to acme.');
  const resumed = page.waitForResponse((r) =>
    r.url().endsWith(`/api/runs/${encodeURIComponent(runId)}/resume`),
  );
  await page.getByRole('button', { name: 'Resume run' }).click();
  assert.equal((await resumed).status(), 202);
  assert.equal((await stack.result(runId)).status, 'completed');
  assert.deepEqual(
    ran.filter((r) => r.runId === runId).map((r) => r.args),
    [{ supplier: 'acme', amount: 4000 }],
  );
  // The correction is the user's word in the model's next request, after the tool's answer.
  const last = conversation.requests.at(-1)!.messages.at(-1)!;
  assert.deepEqual([last.role, last.content], ['user', 'Tell the requester the payment went to acme.']);
  const detail = (await stack.http('GET', `/api/runs/${runId}`, { token: tokens.alice })).body;
  assert.deepEqual(
    detail.audit
      .filter((e: { type: string }) => e.type === 'run.paused' || e.type === 'run.resumed')
      .map((e: { type: string; actor: string; channel: string }) => [e.type, e.actor, e.channel]),
    [
      ['run.paused', 'alice', 'inbox'],
      ['run.resumed', 'alice', 'inbox'],
    ],
  );
});
