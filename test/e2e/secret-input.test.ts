// Secret input in Chromium: a secret a tool needs arrives live in the inbox, marked; the person
// types it into a password field and it reaches the tool, exactly, while the page keeps no trace of
// it: not in its HTML, its URLs, its storage or its console. Settled, it reads "Supplied by alice",
// never a value. One without the role is refused inline, an API without secret keys says so
// inline, and a decline fails the call without the tool running.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { ApprovalView } from '../../protocol/index.js';
import { launchChromium, signIn } from '../support/chromium.js';
import { secretsReceived, tokens } from '../support/api-agents.js';
import { reportRun } from '../support/secret-runs.js';
import { startStack, type Stack } from '../support/stack.js';

const LABEL = 'the reporting database password';
const TITLE = `Secret needed: ${LABEL}`;

let stack: Stack;
let browser: Browser;
let page: Page;
/** What alice's page did: every request (URL, method, body) and every console message. */
const requests: { url: string; method: string; body: string }[] = [];
const consoleLines: string[] = [];

before(async () => {
  // The stack gives the API and the worker secret keys of their own.
  stack = await startStack();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(30_000);
  page.on('request', (r) => requests.push({ url: r.url(), method: r.method(), body: r.postData() ?? '' }));
  page.on('console', (m) => consoleLines.push(m.text()));
  page.on('pageerror', (err) => consoleLines.push(String(err)));
  await signIn(page, stack.url, tokens.alice);
  await page.locator('#live', { hasText: 'live' }).waitFor();
});

after(async () => {
  await browser?.close();
  await stack?.close();
});

const received = (runId: string) => secretsReceived.filter((r) => r.runId === runId);
const decisionPosts = () => requests.filter((r) => r.method === 'POST' && r.url.endsWith('/decision'));
const approvalLink = (p: Page, trackingId: string) =>
  p.locator(`a[href="#/approvals/${encodeURIComponent(trackingId)}"]`);

/** Bob asks the dba agent for a report; run_report needs the password before it runs. */
async function secretAsked(input: string): Promise<{ runId: string; asked: ApprovalView }> {
  const { runId, approval } = await reportRun(stack, input);
  return { runId, asked: approval };
}

/** Everything of the page's own state a typed value could linger in (page code: no DOM types here). */
async function pageTraces(p: Page) {
  return {
    html: await p.content(),
    storage: await p.evaluate<string>('JSON.stringify([{ ...localStorage }, { ...sessionStorage }])'),
    // An input's value is a property, not in the HTML: read every field's.
    fields: await p.evaluate<string[]>(
      "[...document.querySelectorAll('input, textarea')].map((el) => el.value)",
    ),
    url: p.url(),
  };
}

async function assertNoTrace(p: Page, secret: string, where: string) {
  const traces = await pageTraces(p);
  assert.equal(traces.html.includes(secret), false, `${where}: the page's HTML holds the secret`);
  assert.match(traces.storage, /countersign\.token/, 'the storage was read');
  assert.equal(traces.storage.includes(secret), false, `${where}: local or session storage holds the secret`);
  assert.equal(
    traces.fields.some((value) => value.includes(secret)),
    false,
    `${where}: a field still holds the secret`,
  );
  assert.equal(traces.url.includes(secret), false, `${where}: the page's URL holds the secret`);
}

test('a password typed in the inbox reaches the tool exactly, and the page keeps no trace of it', async () => {
  await page.goto(`${stack.url}/#/`);
  await page.getByRole('heading', { name: 'Waiting for a decision' }).waitFor();
  const secret = `pw-${randomUUID()}`;
  const { runId, asked } = await secretAsked('e2e: revenue report');

  // It arrives live in the inbox, marked as a secret, saying what it is for.
  const card = approvalLink(page, asked.trackingId);
  await card.waitFor();
  await card.locator('.badge', { hasText: 'Secret' }).waitFor();
  const cardText = (await card.textContent()) ?? '';
  assert.match(cardText, new RegExp(TITLE));
  assert.match(cardText, new RegExp(`run_report needs ${LABEL}`));

  await card.click();
  await page.getByRole('heading', { name: TITLE }).waitFor();
  await page.locator('h1 .badge', { hasText: 'Secret' }).waitFor();
  const work = page.locator('section[aria-label="Proposal"]');
  await work.locator('code', { hasText: 'run_report' }).waitFor();
  // What the secret unlocks: the call's arguments (which report), not the label again.
  await work.locator('.tool', { hasText: 'For run_report, called with:' }).waitFor();
  await work.locator('.arg-values dt', { hasText: 'report' }).waitFor();
  await work.locator('.arg-values dd', { hasText: 'revenue' }).waitFor();

  const field = page.getByLabel(LABEL, { exact: true });
  assert.equal(await field.getAttribute('type'), 'password');
  assert.equal(await field.getAttribute('autocomplete'), 'off');
  const supply = page.getByRole('button', { name: 'Supply secret' });

  // Nothing typed: nothing sent, and the page says why.
  await supply.click();
  await page.getByRole('alert').getByText('Type the secret first: nothing was sent.').waitFor();
  assert.equal(decisionPosts().length, 0);

  // Enter in the field sends nothing either: deciding takes a press of the button.
  await field.fill(secret);
  await field.press('Enter');
  assert.equal(decisionPosts().length, 0);
  assert.equal(page.url().includes(secret), false);

  await supply.click();
  const outcome = page.locator('section[aria-label="Outcome"]');
  await outcome.locator('.chip', { hasText: 'responded' }).waitFor();
  await outcome.getByText('Supplied by alice').waitFor();
  await page.locator('#toast', { hasText: 'Secret supplied' }).waitFor({ state: 'attached' });

  // The tool received exactly what was typed, once, and the run went on to its end.
  assert.equal((await stack.result(runId)).status, 'completed');
  assert.deepEqual(
    received(runId).map((r) => r.secrets),
    [{ db_password: secret }],
  );

  // It left the page once, in the decision's body, and is nowhere on the page.
  const carried = requests.filter((r) => r.body.includes(secret));
  assert.equal(carried.length, 1, 'one request carried the secret');
  assert.equal(carried[0]!.method, 'POST');
  assert.ok(carried[0]!.url.endsWith(`/api/approvals/${encodeURIComponent(asked.trackingId)}/decision`));
  assert.deepEqual(JSON.parse(carried[0]!.body), { type: 'respond', secret });
  assert.equal(
    requests.some((r) => r.url.includes(secret)),
    false,
    'a request URL holds the secret',
  );
  await assertNoTrace(page, secret, 'after supplying');

  // Read again from the API: who supplied it, never what.
  await page.reload();
  await page.getByRole('heading', { name: TITLE }).waitFor();
  await outcome.getByText('Supplied by alice').waitFor();
  const supplier = page
    .locator('section[aria-label="Details"] dt', { hasText: 'Supplied by' })
    .locator('xpath=following-sibling::dd[1]');
  assert.equal(await supplier.textContent(), 'alice');
  await page.locator('.audit').getByText('Supplied by alice', { exact: true }).waitFor();
  await page.locator('.audit').getByText('Secret for run_report: supplied by alice').waitFor();
  await assertNoTrace(page, secret, 'after a reload');

  // The run: the tool's echo of the password withheld, and a note of who supplied it.
  await page.getByRole('link', { name: 'run', exact: true }).click();
  await page.locator('h1 .chip', { hasText: 'completed' }).waitFor();
  const result = page.locator('.msg-tool');
  await result.locator('.secret-mark', { hasText: `${LABEL}: supplied by alice` }).waitFor();
  await result.locator('pre', { hasText: '[secret withheld]' }).waitFor();
  await page.locator('.audit').getByText(`run_report asked for ${LABEL}`).waitFor();
  await assertNoTrace(page, secret, 'on the run page');

  assert.equal(
    consoleLines.some((line) => line.includes(secret)),
    false,
    'a console message holds the secret',
  );
});

test('one without the role is refused inline, an API without keys says so, and a decline runs nothing', async () => {
  const { runId, asked } = await secretAsked('e2e: refused and declined');
  const route = `${stack.url}/#/approvals/${encodeURIComponent(asked.trackingId)}`;
  const refused = `pw-${randomUUID()}`;

  // Bob asked for the run, so he reads it; he is a treasurer, and run_report's approvers are admins.
  const bob = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  bob.setDefaultTimeout(30_000);
  const bobConsole: string[] = [];
  bob.on('console', (m) => bobConsole.push(m.text()));
  try {
    await signIn(bob, stack.url, tokens.bob);
    await bob.goto(route);
    await bob.getByRole('heading', { name: TITLE }).waitFor();
    const field = bob.getByLabel(LABEL, { exact: true });
    await field.fill(refused);
    await bob.getByRole('button', { name: 'Supply secret' }).click();
    await bob.getByRole('alert').getByText('deciding run_report needs one of the roles admin').waitFor();
    assert.equal(await field.inputValue(), '', 'a refused secret is not left in the field');
    assert.equal(await bob.getByRole('button', { name: 'Supply secret' }).isEnabled(), true);
    await assertNoTrace(bob, refused, "bob's page");
    assert.equal(
      bobConsole.some((line) => line.includes(refused)),
      false,
    );
  } finally {
    await bob.close();
  }

  // Victor may not read the run: the approval is not found for him.
  const victor = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  victor.setDefaultTimeout(30_000);
  try {
    await signIn(victor, stack.url, tokens.victor);
    await victor.goto(route);
    await victor.getByRole('heading', { name: 'Not found' }).waitFor();
  } finally {
    await victor.close();
  }
  const view = await stack.http('GET', `/api/approvals/${asked.trackingId}`, { token: tokens.alice });
  assert.equal(view.body.status, 'pending');
  assert.equal(received(runId).length, 0);

  // An API without secret keys answers 501: its message shows where the buttons are.
  const unavailable =
    'this Countersign API holds no secret keys, so it cannot take a secret (COUNTERSIGN_SECRET_KEYS)';
  await page.route('**/api/approvals/*/decision', (r) =>
    r.fulfill({
      status: 501,
      contentType: 'application/json',
      body: JSON.stringify({ error: { code: 'secret_input_unavailable', message: unavailable } }),
    }),
  );
  try {
    await page.goto(route);
    await page.getByRole('heading', { name: TITLE }).waitFor();
    const field = page.getByLabel(LABEL, { exact: true });
    await field.fill(refused);
    await page.getByRole('button', { name: 'Supply secret' }).click();
    await page.getByRole('alert').getByText(unavailable).waitFor();
    assert.equal(await field.inputValue(), '');
  } finally {
    await page.unroute('**/api/approvals/*/decision');
  }

  // Alice declines: the call fails without running, and the model is told.
  await page.getByLabel(/^Why not/).fill('Not for this report.');
  await page.getByRole('button', { name: 'Decline' }).click();
  const outcome = page.locator('section[aria-label="Outcome"]');
  await outcome.locator('.chip', { hasText: 'rejected' }).waitFor();
  await outcome.getByText('Declined by alice').waitFor();
  await outcome.getByText('Not for this report.').waitFor();
  await page.locator('.audit').getByText('Declined by alice', { exact: true }).waitFor();

  const result = await stack.result(runId);
  assert.equal(result.status, 'completed');
  assert.match(
    result.output ?? '',
    /declined to supply the reporting database password: Not for this report\./,
  );
  assert.equal(received(runId).length, 0, 'the tool never ran');
  assert.equal(
    requests.some((r) => r.url.includes(refused)),
    false,
  );
  assert.equal(
    consoleLines.some((line) => line.includes(refused)),
    false,
  );
  await assertNoTrace(page, refused, "alice's page");
});
