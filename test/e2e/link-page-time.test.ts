// Issue 40: the page an email link opens shows the deadline in the approver's own time zone. The
// server writes it in UTC with the zone named; the page's one script, allowed by its hash in the
// page's Content-Security-Policy, rewrites it in the browser's zone (here Tokyo's).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import { call, calls, say } from '../support/fake-model.js';
import { tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';
import { linkIn, outboxMail } from '../email/mailbox.js';

let stack: Stack;
let browser: Browser;
before(async () => {
  stack = await startStack();
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await stack?.close();
});

test("the confirmation page shows the deadline in the reader's own time zone", async () => {
  const runId = await stack.startRun(
    'bank',
    'link page: local time',
    tokens.victor,
    calls(call('transfer', { from: 'ops', to: 'acme', amount: 20 })),
    say('ok'),
  );
  const [pending] = await stack.waitForPending(runId);
  const mail = await outboxMail(stack.dataDir, pending!.trackingId, 'alice');

  const context = await browser.newContext({ timezoneId: 'Asia/Tokyo', locale: 'en-US' });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (err) => problems.push(String(err)));
  await page.goto(linkIn(mail, 'Approve'));
  const deadline = page.locator(`.note time[datetime="${pending!.deadline}"]`);
  await deadline.waitFor();
  const tokyo = new Date(pending!.deadline).toLocaleString('en-US', {
    timeZone: 'Asia/Tokyo',
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  });
  assert.equal(await deadline.textContent(), tokyo);
  assert.match(tokyo, /GMT\+9/);
  // The UTC time the page was served with stays at hand, as the element's title.
  assert.match((await deadline.getAttribute('title')) ?? '', / UTC$/);
  assert.deepEqual(problems, [], 'the page reported errors (a script refused by its policy?)');
  await context.close();
  await stack.client.workflow.getHandle(runId).cancel();
});
