// An attempt of a tool that does not dedupe ends without the tool saying how, and a person says what
// happened, in Chromium: the outcome approval arrives live in the inbox, marked, with what is known
// of the attempt; "It happened" (with a result checked against the tool's result schema), "It did
// not happen — run it again" and "It failed" each end the call as they say, and the run view reads
// the unknown attempt and its answer in words. One without the role may look but is refused.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { ApprovalView } from '../../protocol/index.js';
import { openInbox, signIn } from '../support/chromium.js';
import { call, calls, say } from '../support/fake-model.js';
import { toolRuns, tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

let stack: Stack;
let browser: Browser;
let page: Page;

before(async () => {
  stack = await startStack();
  ({ browser, page } = await openInbox(stack.url, tokens.alice, { width: 1280, height: 900 }));
});

after(async () => {
  await browser?.close();
  await stack?.close();
});

const restarts = (runId: string) =>
  toolRuns.filter((r) => r.runId === runId && r.tool === 'restart_service').length;

const approvalLink = (p: Page, trackingId: string) =>
  p.locator(`a[href="#/approvals/${encodeURIComponent(trackingId)}"]`);

/**
 * With the inbox open, starts an ops run (asked for by victor) restarting `service`, approves the
 * call through the API, and waits for the first attempt's unknown outcome to be asked about.
 */
async function unknownOutcome(input: string, service: string) {
  await page.goto(`${stack.url}/#/`);
  await page.getByRole('heading', { name: 'Waiting for a decision' }).waitFor();
  const conversation = stack.fake.script(
    input,
    calls(call('restart_service', { service })),
    say(`Done with ${service}.`),
  );
  const started = await stack.http('POST', '/api/runs', {
    token: tokens.victor,
    body: { agent: 'ops', input },
  });
  assert.equal(started.status, 201, started.text);
  const runId: string = started.body.runId;
  const [call0] = await stack.waitForPending(runId);
  assert.equal(call0!.kind, 'call');
  const approved = await stack.http('POST', `/api/approvals/${call0!.trackingId}/decision`, {
    token: tokens.alice,
    body: { type: 'approve' },
  });
  assert.equal(approved.status, 200, approved.text);
  const asked = await waitFor(
    async () => (await stack.state(runId)).pending.find((a) => a.kind === 'outcome'),
    `the outcome of ${service} to be asked about`,
  );
  return { runId, asked, conversation };
}

/** Opens the outcome approval from the inbox card, which must have come live, and checks what it shows. */
async function openFromInbox(asked: ApprovalView, service: string) {
  const card = approvalLink(page, asked.trackingId);
  await card.waitFor();
  await card.locator('.badge', { hasText: 'Outcome unknown' }).waitFor();
  const cardText = (await card.textContent()) ?? '';
  assert.match(cardText, /Did this happen\? restart_service/);
  assert.match(cardText, /Attempt 1 started/);
  assert.match(cardText, new RegExp(`last step: restart of ${service} requested at `));

  await card.click();
  await page.getByRole('heading', { name: 'Did this happen? restart_service' }).waitFor();
  await page.locator('h1 .badge', { hasText: 'Outcome unknown' }).waitFor();
  // The arguments that ran, and what is known of the attempt.
  const work = page.locator('section[aria-label="Proposal"]');
  await work.locator('.arg-values dd', { hasText: service }).waitFor();
  const facts = page.getByLabel('The attempt');
  const fact = async (name: string) =>
    (await facts.locator('dt', { hasText: name }).locator('xpath=following-sibling::dd[1]').textContent()) ??
    '';
  assert.equal(await fact('Attempt'), '1');
  assert.match(await fact('Last step reported'), new RegExp(`restart of ${service} requested at `));
  assert.equal(await fact('How it ended'), `the tool could not tell: ${service} did not confirm the restart`);
  assert.ok(asked.attempt?.startedAt, 'the worker said when the attempt started');
  assert.equal(await facts.locator('time').first().getAttribute('datetime'), asked.attempt.startedAt);
  if (asked.attempt.worker) assert.equal(await fact('Worker'), asked.attempt.worker);
}

test('"It happened", with a result checked against the tool\'s schema, completes the run with that result', async () => {
  const service = 'unsure-api';
  const { runId, asked, conversation } = await unknownOutcome('e2e: it happened', service);
  assert.deepEqual(asked.allowedDecisions, ['respond', 'approve', 'reject']);
  await openFromInbox(asked, service);
  assert.equal(restarts(runId), 1);

  // The result form opens on "It happened"; an empty result is refused here, before anything is sent.
  const opener = page.getByRole('button', { name: 'It happened', exact: true });
  assert.equal(await opener.getAttribute('aria-expanded'), 'false');
  await opener.click();
  const field = page.getByLabel(/^restarted/);
  await field.waitFor();
  await page.getByRole('button', { name: 'Send result' }).click();
  await page.getByText('The result is not valid').waitFor();
  assert.equal(await field.getAttribute('aria-invalid'), 'true');
  assert.equal((await stack.state(runId)).pending.length, 1);

  await field.fill('unsure-api, checked by hand');
  await page.getByRole('button', { name: 'Send result' }).click();
  const outcome = page.locator('section[aria-label="Outcome"]');
  await outcome.locator('.chip', { hasText: 'responded' }).waitFor();
  await outcome.getByText('Reported as happened by alice').waitFor();

  assert.equal((await stack.result(runId)).status, 'completed');
  assert.equal(restarts(runId), 1, 'a call reported as happened is not run again');
  assert.ok(
    [...conversation.toolMessages().values()].includes('{"restarted":"unsure-api, checked by hand"}'),
    'the model read the reported result as the tool output',
  );

  await page.getByRole('link', { name: 'run', exact: true }).click();
  await page.locator('h1 .chip', { hasText: 'completed' }).waitFor();
  const result = page.locator('.msg-tool');
  await result.locator('pre', { hasText: '{"restarted":"unsure-api, checked by hand"}' }).waitFor();
  await result
    .locator('.outcome-mark', { hasText: 'after attempt 1: reported as happened by alice' })
    .waitFor();
  const audit = page.locator('.audit');
  const unknown = audit.locator('li', { hasText: 'tool.unknown' });
  await unknown
    .getByText(
      `Outcome of restart_service unknown: the tool could not tell: ${service} did not confirm the restart; attempt 1 started`,
    )
    .waitFor();
  assert.match((await unknown.textContent()) ?? '', /last step: restart of unsure-api requested at /);
  await audit.getByText('Asked whether the call to restart_service happened').waitFor();
  await audit.getByText('Answered: It happened').waitFor();
  await audit.getByText('Outcome of restart_service: reported as happened by alice').waitFor();
});

test('"It did not happen — run it again" runs one more attempt, and the run completes with its result', async () => {
  const service = 'unsure-db';
  const { runId, asked } = await unknownOutcome('e2e: run it again', service);
  await openFromInbox(asked, service);
  assert.equal(restarts(runId), 1);

  await page.getByRole('button', { name: 'It did not happen — run it again' }).click();
  const outcome = page.locator('section[aria-label="Outcome"]');
  await outcome.locator('.chip', { hasText: 'approved' }).waitFor();
  await outcome.getByText('Run again by alice').waitFor();

  assert.equal((await stack.result(runId)).status, 'completed');
  assert.equal(restarts(runId), 2, 'exactly one more attempt');

  await page.getByRole('link', { name: 'run', exact: true }).click();
  await page.locator('h1 .chip', { hasText: 'completed' }).waitFor();
  const result = page.locator('.msg-tool');
  await result.locator('pre', { hasText: '{"restarted":"unsure-db"}' }).waitFor();
  await result.locator('.outcome-mark', { hasText: 'after attempt 1: run again by alice' }).waitFor();
  await page.locator('.audit').getByText('Outcome of restart_service: run again by alice').waitFor();
});

test('"It failed" with a message: the model is told the call did not complete, and why', async () => {
  const service = 'unsure-cache';
  const { runId, asked, conversation } = await unknownOutcome('e2e: it failed', service);
  await openFromInbox(asked, service);

  await page.getByLabel(/^What went wrong/).fill('The host was powered off.');
  await page.getByRole('button', { name: 'It failed', exact: true }).click();
  const outcome = page.locator('section[aria-label="Outcome"]');
  await outcome.locator('.chip', { hasText: 'rejected' }).waitFor();
  await outcome.getByText('Marked failed by alice').waitFor();
  await outcome.getByText('The host was powered off.').waitFor();

  assert.equal((await stack.result(runId)).status, 'completed');
  assert.equal(restarts(runId), 1, 'a call marked failed is not run again');
  const failure =
    'The tool restart_service failed: its outcome was unknown and alice said it did not complete: The host was powered off.';
  assert.ok([...conversation.toolMessages().values()].includes(failure), 'the model read the failure');

  await page.getByRole('link', { name: 'run', exact: true }).click();
  await page.locator('h1 .chip', { hasText: 'completed' }).waitFor();
  const result = page.locator('.msg-tool');
  await result.locator('pre', { hasText: failure }).waitFor();
  await result.locator('.outcome-mark', { hasText: 'after attempt 1: marked failed by alice' }).waitFor();
  await page.locator('.audit').getByText('Outcome of restart_service: marked failed by alice').waitFor();
});

test('one without the role may read the question, but an answer from them is refused and changes nothing', async () => {
  const service = 'unsure-queue';
  const { runId, asked } = await unknownOutcome('e2e: viewer', service);
  // Victor asked for the run, so he reads it; he holds no admin role, so he may not answer.
  const viewer = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  viewer.setDefaultTimeout(30_000);
  try {
    await signIn(viewer, stack.url, tokens.victor);
    await viewer.goto(`${stack.url}/#/approvals/${encodeURIComponent(asked.trackingId)}`);
    await viewer.getByRole('heading', { name: 'Did this happen? restart_service' }).waitFor();
    await viewer.getByRole('button', { name: 'It did not happen — run it again' }).click();
    await viewer
      .getByRole('alert')
      .getByText('deciding restart_service needs one of the roles admin')
      .waitFor();
    assert.equal(await viewer.getByRole('button', { name: 'It failed', exact: true }).isEnabled(), true);
  } finally {
    await viewer.close();
  }
  const view = await stack.http('GET', `/api/approvals/${asked.trackingId}`, { token: tokens.alice });
  assert.equal(view.body.status, 'pending');
  assert.equal(restarts(runId), 1);

  // Alice ends it, so the run does not wait for the stack's end.
  const failed = await stack.http('POST', `/api/approvals/${asked.trackingId}/decision`, {
    token: tokens.alice,
    body: { type: 'reject' },
  });
  assert.equal(failed.status, 200, failed.text);
  assert.equal((await stack.result(runId)).status, 'completed');
});
