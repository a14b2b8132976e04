// Issue 40, in Chromium: the rule that asked reads as words ("amount over 1000 and at most 100000"),
// follows the edit being typed into the tier it moves to, and says so when nobody who exists can
// meet that tier, before anything is sent; the edit can still be sent.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { ApprovalView } from '../../protocol/index.js';
import { tokens } from '../support/api-agents.js';
import { launchChromium, signIn } from '../support/chromium.js';
import { call, calls, say } from '../support/fake-model.js';
import { startStack, type Stack } from '../support/stack.js';
import { tieredPayments } from '../support/tiered-payments.js';

const payments = tieredPayments('Pay {{amount}} to {{supplier}}');

let stack: Stack;
let browser: Browser;
let page: Page;

before(async () => {
  stack = await startStack({ agents: [payments] });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(30_000);
  await signIn(page, stack.url, tokens.alice);
});

after(async () => {
  await browser?.close();
  await stack?.close();
});

const approvalOf = async (trackingId: string) =>
  (await stack.http<ApprovalView>('GET', `/api/approvals/${trackingId}`, { token: tokens.alice })).body;

/** The previews the page asks for, one per pause in typing, with the amount each was for. */
const previewFor = (amount: number) =>
  page.waitForResponse(
    (r) => r.url().endsWith('/preview') && JSON.parse(r.request().postData() ?? '{}').args?.amount === amount,
  );

test('while an amount is typed, the rule in words follows it, and a tier nobody can meet is warned of', async () => {
  const runId = await stack.startRun(
    'payments',
    'rule words: typing',
    tokens.victor,
    calls(call('pay', { supplier: 'acme', amount: 2500 })),
    say('Paid.'),
  );
  const [pending] = await stack.waitForPending(runId);
  const trackingId = pending!.trackingId;
  await page.goto(`${stack.url}/#/approvals/${encodeURIComponent(trackingId)}`);

  const rule = page.locator('section[aria-label="Decision"] .rule');
  const warning = rule.locator('.rule-warning');
  await rule.locator('.why q', { hasText: 'pay: amount over 1000 and at most 100000' }).waitFor();
  assert.doesNotMatch((await rule.textContent()) ?? '', /amount >|not \(/);
  assert.equal(await warning.count(), 0);

  // Typed into the large tier: its rule, marked as the edit's, and the warning, before any button.
  const amount = page.getByLabel(/^amount/);
  await amount.fill('150000');
  const large = rule.locator('li', { hasText: 'large payment' });
  await large.locator('.why q', { hasText: 'pay: amount over 100000' }).waitFor();
  await large.locator('.as-edited', { hasText: 'with your edit' }).waitFor();
  await warning
    .filter({
      hasText: 'large payment (pay: amount over 100000) needs 2 approvers with role treasurer; only 1 exists',
    })
    .waitFor();
  await rule.locator('.rule-values', { hasText: 'amount is 150000 (proposed 2500)' }).first().waitFor();
  // Asking changed nothing.
  const asked = await approvalOf(trackingId);
  assert.equal(asked.revision, 1);
  assert.equal(asked.args.amount, 2500);
  assert.equal(asked.requirements.length, 1);

  // Back within a tier the approvers can meet: no warning, and the large tier is gone.
  const back = previewFor(4000);
  await amount.fill('4000');
  await back;
  await warning.waitFor({ state: 'detached' });
  assert.equal(await rule.locator('li', { hasText: 'large payment' }).count(), 0);

  // A warning, not a refusal: the edit into the large tier is sent and taken.
  const again = previewFor(150_000);
  await amount.fill('150000');
  await again;
  await warning.first().waitFor();
  await page.getByRole('button', { name: 'Approve with edits' }).click();
  await page.locator('#toast').filter({ hasText: 'Approved with edits' }).waitFor({ state: 'attached' });
  const sent = await approvalOf(trackingId);
  assert.equal(sent.revision, 2);
  assert.equal(sent.args.amount, 150_000);
  assert.equal(sent.status, 'pending');
});
