import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { tokens } from '../support/api-agents.js';
import { openInbox } from '../support/chromium.js';
import { pausedTransfers } from '../support/paused-transfers.js';
import { startStack, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

let stack: Stack;
let browser: Browser;
let page: Page;
let runIds: string[];

before(async () => {
  stack = await startStack();
  // All waiting before the inbox opens: it reads them from the list, not from live events.
  runIds = await pausedTransfers(stack, 'e2e: inbox pages', 55);
  ({ browser, page } = await openInbox(stack.url, tokens.alice));
});

after(async () => {
  await browser?.close();
  await stack?.close();
});

const cards = () => page.locator('ul.cards[aria-label="Waiting for a decision"] > li a');
const shownIds = async () =>
  (await cards().evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''))).map((href) =>
    decodeURIComponent(href.replace('#/approvals/', '')),
  );

test('the inbox shows the first page at once, says more wait, and shows more on demand', async () => {
  await cards().nth(49).waitFor();
  assert.equal(await cards().count(), 50);
  const badge = page.locator('#pending-count');
  assert.equal(await badge.textContent(), '50+');
  assert.match((await badge.getAttribute('title')) ?? '', /more wait/);
  const firstPage = new Set(await shownIds());

  await page.getByRole('button', { name: 'Show more' }).click();
  await cards().nth(54).waitFor();
  assert.equal(await cards().count(), 55);
  await page.getByRole('button', { name: 'Show more' }).waitFor({ state: 'hidden' });
  assert.equal(await badge.textContent(), '55');
  assert.equal(await badge.getAttribute('title'), null);
  const all = await shownIds();
  assert.deepEqual(new Set(all.map((id) => id.slice(0, id.lastIndexOf('.')))), new Set(runIds));

  // An approval of the second page, decided from the inbox.
  const later = all.filter((id) => !firstPage.has(id));
  assert.equal(later.length, 5);
  const trackingId = later[0]!;
  await page.locator(`a[href="#/approvals/${encodeURIComponent(trackingId)}"]`).click();
  await page.getByRole('heading', { name: /transfer/ }).waitFor();
  await page.getByRole('button', { name: 'Approve', exact: true }).click();
  await page.locator('section[aria-label="Outcome"] .chip', { hasText: 'approved' }).waitFor();
  const runId = trackingId.slice(0, trackingId.lastIndexOf('.'));
  assert.equal((await stack.result(runId)).status, 'completed');
  const approval = await stack.http('GET', `/api/approvals/${trackingId}`, { token: tokens.alice });
  assert.equal(approval.body.status, 'approved');

  // Back in the inbox, the pages read stay read, less the one decided.
  await page.goto(`${stack.url}/#/`);
  const rest = await waitFor(async () => {
    const shown = await shownIds();
    return shown.length === 54 && (await badge.textContent()) === '54' ? shown : undefined;
  }, 'the inbox without the approval decided');
  assert.ok(!rest.includes(trackingId));
});
