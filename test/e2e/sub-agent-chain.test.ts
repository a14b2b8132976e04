// A sub-agent's approval as an approver sees it in the inbox, in Chromium: the card and the approval
// page say where it comes from ("dispatch → payments → transfer", the root run linked), and the
// approver decides it there.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { openInbox } from '../support/chromium.js';
import { call, calls, say } from '../support/fake-model.js';
import { startStack, type Stack } from '../support/stack.js';
import { dispatch, subAgentApprovers, subAgentTokens as tokens } from '../support/sub-agent-fixtures.js';

let stack: Stack;
let browser: Browser;
let page: Page;

before(async () => {
  stack = await startStack({ agents: [dispatch], approvers: subAgentApprovers });
  // Bob is a treasurer: he decides payments' transfers, none of dispatch's own tools.
  ({ browser, page } = await openInbox(stack.url, tokens.bob));
});

after(async () => {
  await browser?.close();
  await stack?.close();
});

test("a sub-agent's approval shows its chain and its root run in the inbox, and is decided there", async () => {
  const task = `Send 40 to ann [${randomUUID().slice(0, 8)}]`;
  stack.fake.script(task, calls(call('transfer', { to: 'ann', amount: 40 }, 't1')), say('Sent 40 to ann.'));
  const runId = await stack.startRun(
    'dispatch',
    `Pay ann [${randomUUID().slice(0, 8)}]`,
    tokens.sam,
    calls(call('payments', { task }, 'c1')),
    say('Payments paid ann.'),
  );
  const [pending] = await stack.waitForPending(runId);
  assert.deepEqual(pending!.chain?.agents, ['dispatch', 'payments']);

  await page.goto(`${stack.url}/#/`);
  const card = page.locator(`a[href="#/approvals/${encodeURIComponent(pending!.trackingId)}"]`);
  // Live arrival is inbox.test.ts's: a card the stream has not brought yet is read from the list.
  await card.waitFor({ timeout: 10_000 }).catch(async () => {
    await page.reload();
    await card.waitFor();
  });
  assert.match((await card.textContent()) ?? '', /dispatch → payments → transfer · requested by/);

  await card.click();
  await page.getByRole('heading', { name: /transfer/ }).waitFor();
  const meta = page.locator('p.meta');
  assert.match((await meta.textContent()) ?? '', /dispatch → payments → transfer/);
  // Its own run (the sub-agent's, `<root>--c1`) is linked too: the root's is the one named exactly.
  const rootLink = page.locator('dl.facts').getByRole('link', { name: runId, exact: true });
  assert.equal(await rootLink.getAttribute('href'), `#/runs/${encodeURIComponent(runId)}`);

  await page.getByRole('button', { name: 'Approve', exact: true }).click();
  const output = await stack.result(runId);
  assert.equal(output.status, 'completed');
  assert.equal(output.output, 'Payments paid ann.');
});
