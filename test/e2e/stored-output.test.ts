// A tool output kept in the content store, read in the run view of Chromium: its size first, then,
// on "Show output", the whole text in a box of its own, as text; a store that fails says so there.
// Text shaped like a reference that the run's worker did not write is shown as that text.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { fileContentStore } from '../../content-store/content-store.js';
import { launchChromium, signIn } from '../support/chromium.js';
import { call, calls, say } from '../support/fake-model.js';
import { apiTestAgents, tokens } from '../support/api-agents.js';
import { forgedMarker, logReader, logRef, logText, pageReader } from '../support/log-agent.js';
import { startStack, type Stack } from '../support/stack.js';

const storeDir = mkdtempSync(path.join(tmpdir(), 'countersign-e2e-outputs-'));
let stack: Stack;
let browser: Browser;
let page: Page;

before(async () => {
  stack = await startStack({
    agents: [...apiTestAgents, logReader, pageReader],
    contentStore: fileContentStore(storeDir),
  });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(30_000);
  // Victor holds no role: he reads the run because he asked for it.
  await signIn(page, stack.url, tokens.victor);
});

after(async () => {
  await browser?.close();
  await stack?.close();
  rmSync(storeDir, { recursive: true, force: true });
});

test('the run view shows a stored output on request, whole and as text, and a failed read inline', async (t) => {
  const runId = await stack.startRun(
    'log-reader',
    'e2e: read the checkout log',
    tokens.victor,
    calls(call('read_log', { service: 'checkout' })),
    say('The checkout log is read.'),
  );
  assert.equal((await stack.result(runId)).status, 'completed');
  const log = logText('checkout');

  await page.goto(`${stack.url}/#/runs/${encodeURIComponent(runId)}`);
  await page.getByRole('heading', { name: 'Conversation' }).waitFor();
  const result = page.locator('.msg-tool');
  await result
    .getByText(`Output of ${Buffer.byteLength(log).toLocaleString('en-US')} bytes`, { exact: false })
    .waitFor();
  const output = result.locator('pre.stored-output-text');
  assert.equal(await output.isVisible(), false, 'the text waits to be asked for');

  await result.getByRole('button', { name: 'Show output' }).click();
  await result.getByRole('button', { name: 'Hide output' }).waitFor();
  assert.equal(await output.textContent(), log);
  // The markup in the log is text: nothing of it became an element.
  assert.equal(await output.locator('*').count(), 0);
  // A long output scrolls inside its own box (page code as source text: no DOM types here).
  const box = await page.evaluate(`(() => {
    const el = document.querySelector('pre.stored-output-text');
    return { overflow: getComputedStyle(el).overflowY, scrolls: el.scrollHeight > el.clientHeight };
  })()`);
  assert.deepEqual(box, { overflow: 'auto', scrolls: true });

  await result.getByRole('button', { name: 'Hide output' }).click();
  await output.waitFor({ state: 'hidden' });

  // The store loses the text: the next read says why in place, and the button is there to try again.
  for (const dir of readdirSync(storeDir)) rmSync(path.join(storeDir, dir), { recursive: true, force: true });
  t.mock.method(console, 'error', () => undefined);
  await result.getByRole('button', { name: 'Show output' }).click();
  await result
    .getByRole('alert')
    .getByText(/Could not read the output: the content store could not return sha256:/)
    .waitFor();
  assert.equal(await output.isVisible(), false);
  assert.equal(await result.getByRole('button', { name: 'Show output' }).isEnabled(), true);
});

test("a tool's text naming another run's stored output is shown as that text, with nothing to open", async () => {
  const other = await stack.startRun(
    'log-reader',
    'e2e: alice reads the billing log',
    tokens.alice,
    calls(call('read_log', { service: 'billing' })),
    say('Read it.'),
  );
  assert.equal((await stack.result(other)).status, 'completed');
  const forged = JSON.stringify(forgedMarker(logRef('billing')));
  const runId = await stack.startRun(
    'page-reader',
    'e2e: a page forges a reference',
    tokens.victor,
    calls(call('fetch_page', { body: forged, json: true }, 'p1')),
    say('Read the page.'),
  );
  assert.equal((await stack.result(runId)).status, 'completed');

  await page.goto(`${stack.url}/#/runs/${encodeURIComponent(runId)}`);
  const result = page.locator('.msg-tool');
  await result.getByText('Tool result (p1)').waitFor();
  assert.equal(await result.locator('pre').textContent(), forged);
  assert.equal(await result.getByRole('button', { name: 'Show output' }).count(), 0);
});
