import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { trackingIdFor } from '../../protocol/index.js';
import { injectedMarkup, launchChromium, visibleText, waitForText } from './support/browser.js';
import { FAULT_AGENT } from './support/fault-agents.js';
import { inputFor } from './support/fault-model.js';
import { startFaultStack } from './support/fault-stack.js';
import { waitForEmail } from './support/outbox.js';

const PAYLOAD =
  `<script>window.__pwned='script'</script><img src=x onerror="window.__pwned='img'">` +
  `<svg onload="window.__pwned='svg'"></svg><a href="javascript:window.__pwned='href'">click</a> "'&amp;`;

test('HTML and script in tool arguments are shown as text in the inbox and in email', async (t) => {
  const fs = await startFaultStack({ notify: true });
  t.after(() => fs.close());
  const started = await fs.requester.send<{ runId: string }>('POST', '/api/runs', {
    agent: FAULT_AGENT,
    input: inputFor(PAYLOAD, 7),
  });
  assert.equal(started.status, 201);
  const { runId } = started.body;
  const trackingId = trackingIdFor(runId, 1);
  const reviewer = fs.approvers[1]!;
  await fs.reviewers[0]!.retry<{ args?: { ref?: string } }>(
    'GET',
    `/api/approvals/${trackingId}`,
    undefined,
    (r) => r.body.args?.ref === PAYLOAD,
  );

  const mail = await waitForEmail(fs.dataDir, reviewer.email!, trackingId);
  const html = String(mail.html);
  assert.ok(!html.includes('<script>window.__pwned'), 'no live script tag in the email');
  assert.ok(!html.includes('<img src=x'), 'no live img tag in the email');
  assert.ok(html.includes('&lt;script&gt;'), 'the script tag is escaped in the email');

  const browser = await launchChromium();
  t.after(() => browser.close());
  const page = await browser.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });

  // The email as a mail client that runs scripts would show it.
  await page.setContent(html);
  await sleep(500);
  assert.deepEqual(await injectedMarkup(page), { pwned: undefined, elements: 0 });
  assert.ok((await visibleText(page)).includes("<script>window.__pwned='script'</script>"));

  await page.addInitScript({
    content: `localStorage.setItem('countersign.token', ${JSON.stringify(reviewer.token)})`,
  });
  for (const view of [
    `#/approvals/${encodeURIComponent(trackingId)}`,
    `#/runs/${encodeURIComponent(runId)}`,
  ]) {
    await page.goto(`${fs.stack.apiUrl}/${view}`);
    await waitForText(page, "window.__pwned='script'");
    await sleep(500);
    assert.deepEqual(
      await injectedMarkup(page),
      { pwned: undefined, elements: 0 },
      `${view} ran or built the payload`,
    );
  }
  assert.deepEqual(dialogs, []);
});
