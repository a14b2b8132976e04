import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { openInbox, signIn } from '../support/chromium.js';
import { call, calls, say } from '../support/fake-model.js';
import { toolRuns, tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';
import { pool } from '../faults/support/pool.js';
import { waitFor } from '../support/wait-for.js';

let stack: Stack;
let browser: Browser;
let page: Page;

before(async () => {
  stack = await startStack();
  ({ browser, page } = await openInbox(stack.url, tokens.alice));
});

after(async () => {
  await browser?.close();
  await stack?.close();
});

/** Starts a transfer run and waits until it waits for its approval. */
async function pendingTransfer(input: string, args: Record<string, unknown>) {
  const runId = await stack.startRun(
    'bank',
    input,
    tokens.victor,
    calls(call('transfer', args)),
    say(`Finished ${input}.`),
  );
  const [pending] = await stack.waitForPending(runId);
  return { runId, trackingId: pending!.trackingId };
}

/** Starts a transfer run and opens its approval from the inbox, where it arrives live. */
async function openNewApproval(input: string, args: Record<string, unknown>) {
  await page.goto(`${stack.url}/#/`);
  await page.getByRole('heading', { name: 'Waiting for a decision' }).waitFor();
  const { runId, trackingId } = await pendingTransfer(input, args);
  await page.locator(`a[href="#/approvals/${encodeURIComponent(trackingId)}"]`).click();
  await page.getByRole('heading', { name: /transfer/ }).waitFor();
  return { runId, trackingId };
}

const status = async (trackingId: string) =>
  (await stack.http('GET', `/api/approvals/${trackingId}`, { token: tokens.alice })).body.status;

test('an invalid edit shows its error and changes nothing; a valid edit is applied and the run finishes', async () => {
  const hostile = '<img src=x onerror=window.pwned=1>';
  const { runId, trackingId } = await openNewApproval('e2e: edit', {
    from: 'ops',
    to: 'acme',
    amount: 1500,
    memo: hostile,
  });
  // Attacker-controlled arguments are shown as text, never as markup.
  assert.equal(await page.locator('#main img').count(), 0);
  assert.ok((await page.locator('pre.args').textContent())?.includes(hostile));
  assert.equal(await page.evaluate('window.pwned'), undefined);
  // The model's context is there.
  await page.getByText('Asked:').waitFor();
  assert.equal(await page.getByLabel(/^to/).isDisabled(), true);

  const amount = page.getByLabel(/^amount/);
  await amount.fill('-5');
  await page.getByText('must be more than 0', { exact: true }).waitFor();
  assert.equal(await amount.getAttribute('aria-invalid'), 'true');
  await page.getByRole('button', { name: 'Approve with edits' }).click();
  await page.getByText('Some arguments are not valid').waitFor();
  assert.equal(await status(trackingId), 'pending');

  await amount.fill('250');
  await page.locator('.diff-box del', { hasText: '1500' }).waitFor();
  await page.locator('.diff-box ins', { hasText: '250' }).waitFor();
  await page.getByRole('button', { name: 'Reset to proposed' }).click();
  assert.equal(await amount.inputValue(), '1500');
  await amount.fill('250');
  await page.getByRole('button', { name: 'Approve with edits' }).click();
  await page.getByRole('heading', { name: 'Outcome' }).waitFor();
  await page.locator('section[aria-label="Outcome"] .chip', { hasText: 'edited' }).waitFor();

  const output = await stack.result(runId);
  assert.equal(output.status, 'completed');
  assert.deepEqual(
    toolRuns.filter((r) => r.runId === runId).map((r) => r.args.amount),
    [250],
  );
  await page.locator('.audit li', { hasText: 'approval.decided' }).first().waitFor();
});

test('approve as proposed, and the run view shows it finished', async () => {
  const { runId, trackingId } = await openNewApproval('e2e: approve', {
    from: 'ops',
    to: 'acme',
    amount: 75,
  });
  // Who must approve, and which rule asked for it.
  await page.locator('ul.requirements li', { hasText: 'admin or treasurer: 0 of 1' }).waitFor();
  await page.locator('ul.requirements .why', { hasText: 'transfer:' }).waitFor();
  await page.getByRole('button', { name: 'Approve', exact: true }).click();
  await page.locator('section[aria-label="Outcome"] .chip', { hasText: 'approved' }).waitFor();
  assert.equal(await status(trackingId), 'approved');
  assert.equal((await stack.result(runId)).status, 'completed');

  await page.getByRole('link', { name: runId }).click();
  await page.getByRole('heading', { name: 'Answer' }).waitFor();
  await page.locator('.output', { hasText: 'Finished e2e: approve.' }).waitFor();
  await page.locator('h1 .chip', { hasText: 'completed' }).waitFor();
});

test('reject with a reason; the decided list shows it', async () => {
  const { runId, trackingId } = await openNewApproval('e2e: reject', {
    from: 'ops',
    to: 'mallory',
    amount: 9000,
  });
  await page.getByLabel(/^Reason/).fill('Unknown payee.');
  await page.getByRole('button', { name: 'Reject' }).click();
  await page.locator('section[aria-label="Outcome"] .chip', { hasText: 'rejected' }).waitFor();
  await page.locator('section[aria-label="Audit trail"]', { hasText: 'Unknown payee.' }).waitFor();
  assert.equal(await status(trackingId), 'rejected');
  assert.equal((await stack.result(runId)).status, 'completed');
  assert.equal(toolRuns.filter((r) => r.runId === runId).length, 0);

  await page.getByRole('link', { name: 'Decided' }).click();
  await page.locator(`a[href="#/approvals/${encodeURIComponent(trackingId)}"]`).waitFor();
});

test('usable on a phone: no sideways scrolling', async () => {
  const phone = await browser.newPage({ viewport: { width: 375, height: 740 } });
  await signIn(phone, stack.url, tokens.alice);
  await phone.goto(`${stack.url}/#/decided`);
  await phone.getByRole('heading', { name: 'Decided' }).waitFor();
  const overflow = Number(await phone.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
  assert.ok(overflow <= 0, `page is ${overflow}px wider than the screen`);
  await phone.close();
});

test('plan review: reorder, extend with a validated step, approve; the steps run in the approved order', async () => {
  await page.goto(`${stack.url}/#/`);
  await page.getByRole('heading', { name: 'Waiting for a decision' }).waitFor();
  const runId = await stack.startRun(
    'release',
    'e2e: plan',
    tokens.victor,
    calls(call('build', { target: 'app' }), call('publish', { channel: 'beta' })),
    say('Released.'),
  );
  const [pending] = await stack.waitForPending(runId);
  assert.equal(pending!.kind, 'plan');
  await page.locator(`a[href="#/approvals/${encodeURIComponent(pending!.trackingId)}"]`).click();
  await page.getByRole('button', { name: 'Approve plan' }).waitFor();

  await page.getByRole('button', { name: 'Move step 2 up' }).click();
  // Each step's arguments are a form from its tool's schema.
  const step = (n: number) => page.getByRole('group', { name: new RegExp(`^Step ${n}:`) });
  assert.equal(
    await step(1)
      .getByLabel(/^channel/)
      .locator('option:checked')
      .textContent(),
    '"beta"',
  );
  await page.getByLabel('Add a step calling').selectOption('build');
  await page.getByRole('button', { name: 'Add step' }).click();
  await page.getByRole('button', { name: 'Approve edited plan' }).click();
  await step(3).locator('.field-error', { hasText: 'is required' }).waitFor();
  assert.equal(
    await step(3)
      .getByLabel(/^target/)
      .getAttribute('aria-invalid'),
    'true',
  );
  assert.equal(await status(pending!.trackingId), 'pending');

  await step(3)
    .getByLabel(/^target/)
    .fill('docs');
  await page.getByRole('button', { name: 'Approve edited plan' }).click();
  await page.locator('section[aria-label="Outcome"] .chip', { hasText: 'edited' }).waitFor();
  // The run records who added the step: its requester, judged by its tool's policy.
  await page.locator('.added-by', { hasText: 'added by alice' }).waitFor();
  assert.equal((await stack.result(runId)).status, 'completed');
  assert.deepEqual(
    toolRuns.filter((r) => r.runId === runId).map((r) => `${r.tool}:${Object.values(r.args).join()}`),
    ['publish:beta', 'build:app', 'build:docs'],
  );
});

test('a question from ask_human is answered from the inbox, and the model gets the answer', async () => {
  await page.goto(`${stack.url}/#/`);
  await page.getByRole('heading', { name: 'Waiting for a decision' }).waitFor();
  const conversation = stack.fake.script(
    'e2e: question',
    calls(call('ask_human', { question: 'Which account pays?', choices: ['ops', 'payroll'] })),
    say('Thanks.'),
  );
  const { runId } = (
    await stack.http('POST', '/api/runs', {
      token: tokens.victor,
      body: { agent: 'helper', input: 'e2e: question' },
    })
  ).body;
  const [pending] = await stack.waitForPending(runId);
  assert.equal(pending!.kind, 'question');
  await page.locator(`a[href="#/approvals/${encodeURIComponent(pending!.trackingId)}"]`).click();
  await page.getByText('Which account pays?').first().waitFor();
  await page.getByLabel('Your answer').selectOption('payroll');
  await page.getByRole('button', { name: 'Send answer' }).click();
  await page.locator('section[aria-label="Outcome"] .chip', { hasText: 'responded' }).waitFor();
  assert.equal((await stack.result(runId)).status, 'completed');
  assert.ok([...conversation.toolMessages().values()].some((m) => m.includes('payroll')));
});

test('older runs and decisions are a click away: the lists page', async () => {
  const { runId: rejected, trackingId } = await pendingTransfer('e2e: old decision', {
    from: 'ops',
    to: 'acme',
    amount: 5000,
  });
  const decision = await stack.http('POST', `/api/approvals/${trackingId}/decision`, {
    token: tokens.alice,
    body: { type: 'reject', message: 'Too much.' },
  });
  assert.equal(decision.status, 200);
  await stack.result(rejected);
  // A page of newer runs in front of it, each answered at once.
  const newer = await pool(
    Array.from({ length: 50 }, (_, i) => `e2e: newer ${i}`),
    8,
    (input) => stack.startRun('bank', input, tokens.victor, say('Done.')),
  );
  await pool(newer, 8, (runId) => stack.result(runId));
  // The lists read Temporal's visibility, which shows the newer runs a little after they ended.
  await stack.listUntil('/api/runs?status=completed&limit=50', tokens.alice, (body) =>
    newer.every((runId) => body.runs.some((r: { runId: string }) => r.runId === runId)),
  );

  await page.goto(`${stack.url}/#/decided`);
  await page.getByRole('heading', { name: 'Decided' }).waitFor();
  const card = page.locator(`a[href="#/approvals/${encodeURIComponent(trackingId)}"]`);
  assert.equal(await card.count(), 0, 'the first page covers only the newest runs');
  await page.getByRole('button', { name: 'Show older decisions' }).click();
  await card.waitFor();

  await page.goto(`${stack.url}/#/runs`);
  await page.getByRole('heading', { name: 'Runs' }).waitFor();
  const rows = page.locator('tbody tr');
  const link = page.getByRole('link', { name: rejected });
  // A full first page, whichever of the newer runs it puts first: the list's order is Temporal's
  // (runs still open before closed ones, on the dev server), not the order they were started in.
  await rows.nth(49).waitFor();
  assert.equal(await rows.count(), 50);
  assert.equal(await link.count(), 0);
  await page.getByRole('button', { name: 'Show older runs' }).click();
  await link.waitFor();
  assert.ok((await rows.count()) > 50);
});

test('the runs page filters by status', async () => {
  const { runId: waiting } = await pendingTransfer('e2e: waiting run', {
    from: 'ops',
    to: 'acme',
    amount: 4000,
  });
  await page.goto(`${stack.url}/#/runs`);
  await page.getByRole('heading', { name: 'Runs' }).waitFor();
  const statuses = () => page.locator('tbody tr td:nth-child(3)').allTextContents();

  // The unfiltered page may show the waiting run already: wait for the filtered page itself, whose
  // rows all have the one status (a filter that did nothing never gets there).
  const onlyStatus = (status: string) =>
    waitFor(async () => {
      const shown = await statuses();
      return shown.length > 0 && shown.every((s) => s === status) ? true : undefined;
    }, `a runs page of ${status} runs only`);
  await page.getByLabel('Status').selectOption('waiting');
  await onlyStatus('waiting');
  await page.getByRole('link', { name: waiting }).waitFor();
  assert.deepEqual([...new Set(await statuses())], ['waiting']);

  await page.getByLabel('Status').selectOption('completed');
  await onlyStatus('completed');
  await page.getByRole('link', { name: waiting }).waitFor({ state: 'detached' });
  const shown = await statuses();
  assert.ok(shown.length > 0);
  assert.deepEqual([...new Set(shown)], ['completed']);
});

test('a proposal edited elsewhere while open is shown again, with what changed, before any button acts', async () => {
  await page.goto(`${stack.url}/#/`);
  await page.getByRole('heading', { name: 'Waiting for a decision' }).waitFor();
  const runId = await stack.startRun(
    'treasury',
    'e2e: changed while open',
    tokens.victor,
    calls(call('grant', { supplier: 'acme', amount: 250 })),
    say('Granted.'),
  );
  const [pending] = await stack.waitForPending(runId);
  const trackingId = pending!.trackingId;
  await page.locator(`a[href="#/approvals/${encodeURIComponent(trackingId)}"]`).click();
  await page.getByRole('heading', { name: /grant/ }).waitFor();

  // Bob edits it through the API while Alice has it open at revision 1.
  const edited = await stack.http('POST', `/api/approvals/${trackingId}/decision`, {
    token: tokens.bob,
    body: { type: 'edit', args: { supplier: 'acme', amount: 900 } },
    headers: { 'if-match': '"1"' },
  });
  assert.equal(edited.status, 200, edited.text);
  const banner = page.locator('section[aria-label="Proposal changed"]');
  await banner.locator('h2', { hasText: 'revision 1 → 2' }).waitFor();
  await banner.locator('.diff-box del, del', { hasText: '250' }).first().waitFor();
  await banner.locator('ins', { hasText: '900' }).first().waitFor();

  // Her approval now names revision 2: it countersigns 900, and the grant runs once.
  await page.getByRole('button', { name: 'Approve', exact: true }).click();
  await page.locator('section[aria-label="Outcome"] .chip', { hasText: 'edited' }).waitFor();
  await stack.result(runId);
  assert.deepEqual(
    toolRuns.filter((r) => r.runId === runId).map((r) => r.args.amount),
    [900],
  );
});
