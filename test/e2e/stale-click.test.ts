import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, signIn } from '../support/chromium.js';
import { call, calls, say } from '../support/fake-model.js';
import { toolRuns, tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';

// A click on a page that still shows an older proposal never signs it. The live stream is cut off
// here, so nothing re-renders the page before the click: the server must refuse it (412), and the
// page must then show the current proposal and what changed.
let stack: Stack;
let browser: Browser;
let page: Page;

before(async () => {
  stack = await startStack();
  browser = await launchChromium();
  page = await browser.newPage();
  page.setDefaultTimeout(30_000);
  // No live events reach this page: every connection to the event stream fails.
  await page.route('**/api/events', (route) => route.abort());
  await signIn(page, stack.url, tokens.alice);
  await page.locator('#live[data-state="reconnecting"]').waitFor();
});

after(async () => {
  await browser?.close();
  await stack?.close();
});

/** The amount the page proposes, in the arguments editor and in the raw JSON of the proposal. */
const amountField = () => page.getByLabel(/^amount/);
async function shownAmount(amount: string) {
  await page
    .locator('pre[aria-label="Proposed arguments"]', { hasText: `"amount": ${amount}` })
    .waitFor({ state: 'attached' });
  // Rendered with the same approval as the raw JSON.
  assert.equal(await amountField().inputValue(), amount);
}

test('an approve clicked on a proposal edited since the page loaded is refused with 412 and shows the current one', async () => {
  // A grant of 250 that needs two of alice (admin) and bob (treasurer); Victor asked for it.
  const runId = await stack.startRun(
    'treasury',
    'e2e: stale click',
    tokens.victor,
    calls(call('grant', { supplier: 'acme', amount: 250 })),
    say('Granted.'),
  );
  const [pending] = await stack.waitForPending(runId);
  const trackingId = pending!.trackingId;
  await page.goto(`${stack.url}/#/approvals/${encodeURIComponent(trackingId)}`);
  await page.getByRole('heading', { name: /grant/ }).waitFor();
  await shownAmount('250');

  // Bob raises it to 900 through the API while Alice's page shows revision 1.
  const edited = await stack.http('POST', `/api/approvals/${trackingId}/decision`, {
    token: tokens.bob,
    body: { type: 'edit', args: { supplier: 'acme', amount: 900 } },
    headers: { 'if-match': '"1"' },
  });
  assert.equal(edited.status, 200, edited.text);
  assert.equal(edited.body.outcome.status, 'pending');
  assert.equal(edited.body.outcome.revision, 2);
  // The page has not heard of it: it still offers to approve 250.
  assert.equal(await amountField().inputValue(), '250');
  assert.equal(await page.locator('section[aria-label="Proposal changed"]').count(), 0);

  const isDecision = (r: { url(): string; request(): { method(): string } }) =>
    r.url().endsWith(`/api/approvals/${encodeURIComponent(trackingId)}/decision`) &&
    r.request().method() === 'POST';
  const [stale] = await Promise.all([
    page.waitForResponse(isDecision),
    page.getByRole('button', { name: 'Approve', exact: true }).click(),
  ]);
  assert.equal(stale.request().headers()['if-match'], '"1"', 'the page sends the revision it shows');
  assert.equal(stale.status(), 412);
  const refusal = (await stale.json()) as {
    error: { code: string; current: { revision: number; args: unknown } };
  };
  assert.equal(refusal.error.code, 'stale_revision');
  assert.equal(refusal.error.current.revision, 2);
  assert.deepEqual(refusal.error.current.args, { supplier: 'acme', amount: 900 });

  // The page says the proposal changed, shows what changed and the current proposal.
  await page.locator('#toast', { hasText: 'Nothing was decided' }).waitFor({ state: 'attached' });
  const banner = page.locator('section[aria-label="Proposal changed"]');
  await banner.locator('h2', { hasText: 'revision 1 → 2' }).waitFor();
  await banner.locator('del', { hasText: '250' }).first().waitFor();
  await banner.locator('ins', { hasText: '900' }).first().waitFor();
  await shownAmount('900');

  // Nothing was signed on revision 1: Bob's edit is the only sign-off, the refusal is on record.
  const shown = await stack.http('GET', `/api/approvals/${trackingId}`, { token: tokens.alice });
  assert.equal(shown.body.status, 'pending');
  assert.deepEqual(
    shown.body.approvals.map((s: { approver: string; revision: number }) => [s.approver, s.revision]),
    [['bob', 2]],
  );
  assert.equal(toolRuns.filter((r) => r.runId === runId).length, 0);
  const refused = (await stack.state(runId)).events.filter((e) => e.type === 'decision.refused');
  assert.deepEqual(
    refused.map((e) => [e.actor, e.channel, e.decision, e.code]),
    [['alice', 'inbox', 'approve', 'stale_revision']],
  );

  // Shown 900, Alice countersigns it: the grant runs once, with 900.
  const [current] = await Promise.all([
    page.waitForResponse(isDecision),
    page.getByRole('button', { name: 'Approve', exact: true }).click(),
  ]);
  assert.equal(current.request().headers()['if-match'], '"2"');
  assert.equal(current.status(), 200);
  await page.locator('section[aria-label="Outcome"] .chip', { hasText: 'edited' }).waitFor();
  await stack.result(runId);
  assert.deepEqual(
    toolRuns.filter((r) => r.runId === runId).map((r) => r.args),
    [{ supplier: 'acme', amount: 900 }],
  );
  const final = await stack.http('GET', `/api/approvals/${trackingId}`, { token: tokens.alice });
  assert.deepEqual(
    final.body.approvals.map((s: { approver: string; revision: number }) => [s.approver, s.revision]),
    [
      ['bob', 2],
      ['alice', 2],
    ],
  );
});
