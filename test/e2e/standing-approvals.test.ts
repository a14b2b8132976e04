// A standing approval as an approver gives and ends it in the inbox, in Chromium: the approval page
// offers "and the later calls like it" where the policy does (unticked), the run page lists what it
// covered, and Revoke ends it, so the next call like it asks again.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, openRun, signIn } from '../support/chromium.js';
import { apiTestAgents, tokens } from '../support/api-agents.js';
import { pendingCall, pettyCash, startRefills } from '../support/petty-cash.js';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;
let browser: Browser;
let page: Page;

before(async () => {
  stack = await startStack({ agents: [...apiTestAgents, pettyCash] });
  browser = await launchChromium();
  page = await browser.newPage();
  page.setDefaultTimeout(30_000);
  // Bob is a treasurer.
  await signIn(page, stack.url, tokens.bob);
});

after(async () => {
  await browser?.close();
  await stack?.close();
});

test('an approver gives a standing approval from the approval page and revokes it from the run page', async () => {
  const runId = await startRefills(stack, 'refill the boxes');
  const first = await pendingCall(stack, runId, 'r1');
  await page.goto(`${stack.url}/#/approvals/${encodeURIComponent(first.trackingId)}`);
  const choice = page.getByLabel(
    /Also approve up to 5 later refill calls like this one in this run, for 1 hour/,
  );
  assert.equal(await choice.isChecked(), false, 'a standing approval is never given by default');
  await choice.check();
  await page.getByRole('button', { name: 'Approve', exact: true }).click();

  // The second refill ran under it; the note asks, as its policy offers none.
  const counting = await pendingCall(stack, runId, 'n1');
  await openRun(page, stack.url, runId);
  const item = page.locator('ul.standing li');
  await item.filter({ hasText: '1 of 5 later calls run' }).waitFor();
  assert.match((await item.textContent()) ?? '', /refill · active · granted by bob/);

  await item.getByRole('button', { name: 'Revoke' }).click();
  await item.filter({ hasText: 'revoked by bob' }).waitFor();
  await stack.http('POST', `/api/approvals/${counting.trackingId}/decision`, {
    token: tokens.bob,
    body: { type: 'approve' },
  });
  // Revoked: the third refill asks again.
  const third = await pendingCall(stack, runId, 'r3');
  await stack.http('POST', `/api/approvals/${third.trackingId}/decision`, {
    token: tokens.bob,
    body: { type: 'reject', message: 'enough' },
  });
  const result = await stack.result(runId);
  const standing = result.state!.events.filter((e) => e.type.startsWith('standing.'));
  assert.deepEqual(
    standing.map((e) => [e.type, e.channel ?? null]),
    [
      ['standing.granted', null],
      ['standing.used', null],
      ['standing.revoked', 'inbox'],
    ],
  );
});
