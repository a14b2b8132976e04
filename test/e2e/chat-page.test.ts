import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Running } from '../start/running.js';
import { launchChromium, signIn } from '../support/chromium.js';

// The demo's chat page as `npm start` serves it (`/chat/`), in Chromium: useChat with the AI SDK's
// default transport, against countersignChat and the offline demo model.
let cs: Running;
let browser: Browser;
let page: Page;
/** Each request the chat page made to its API, as `METHOD path`. */
let requests: string[] = [];

before(async () => {
  // The page as its sources say now (npm ci builds it too).
  execFileSync(process.execPath, ['scripts/build-chat.mjs'], { stdio: 'inherit' });
  cs = await Running.start();
  browser = await launchChromium();
  page = await browser.newPage();
  page.setDefaultTimeout(60_000);
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/chat/api')) requests.push(`${request.method()} ${url.pathname}`);
  });
  // The chat page signs in with the inbox's own token.
  await signIn(page, cs.url, cs.token);
});

after(async () => {
  await browser?.close();
  await cs?.stop();
});

/** Opens a new chat on the page; its first turn's run is `chat-<chatId>-1`. */
async function openChat(): Promise<string> {
  const chatId = randomUUID();
  await page.goto(`${cs.url}/chat/#${chatId}`);
  await page.getByRole('heading', { name: 'Chat with the bank-transfer agent' }).waitFor();
  requests = [];
  return chatId;
}

async function ask(text: string): Promise<void> {
  await page.getByLabel('Message').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
}

const lastAgentMessage = () => page.locator('li.message.assistant').last();
const agentSays = (text: string) => page.locator('li.message.assistant', { hasText: text }).waitFor();
const transferCall = () => lastAgentMessage().getByRole('region', { name: 'transfer call' });

test('a gated transfer is approved in the chat; the next message is a new turn of the same chat', async () => {
  const chatId = await openChat();
  await ask('Transfer $2,500 from 4242 4242 4242 4242 to 5555 5555 5555 4444');
  await transferCall().getByLabel('Arguments').filter({ hasText: '"amount": 2500' }).waitFor();
  await lastAgentMessage()
    .getByText('Your approval is asked: Transfer $2500 from 4242 4242 4242 4242 to 5555 5555 5555 4444')
    .waitFor();
  await transferCall().getByRole('button', { name: 'Approve' }).click();

  await agentSays('Transferred $2,500.00 from 4242 4242 4242 4242 to 5555 5555 5555 4444.');
  await transferCall().getByLabel('Result').filter({ hasText: '"status": "executed"' }).waitFor();
  await lastAgentMessage().getByText('approved by admin (approve via chat).').waitFor();
  const [approval] = (await cs.run(`chat-${chatId}-1`)).approvals;
  assert.equal(approval?.status, 'approved');
  assert.deepEqual(approval?.outcome?.by, ['admin']);

  // Under $1,000 it runs at once, in the chat's second turn.
  await ask('Transfer $500 from 4242 4242 4242 4242 to 4000 0566 5566 5556');
  await agentSays('Transferred $500.00 from 4242 4242 4242 4242 to 4000 0566 5566 5556.');
  assert.equal((await cs.run(`chat-${chatId}-2`)).status, 'completed');
  assert.deepEqual(requests, ['POST /chat/api', 'POST /chat/api', 'POST /chat/api']);
});

test('a transfer denied in the chat with a reason, which the agent reads', async () => {
  const chatId = await openChat();
  await ask('Transfer $3,000 from 4242 4242 4242 4242 to 5555 5555 5555 4444');
  await transferCall().getByRole('button', { name: 'Deny' }).click();
  await transferCall().getByLabel('Reason (the agent reads it)').fill('The payee is not verified');
  await transferCall().getByRole('button', { name: 'Send denial' }).click();

  await agentSays(
    'I did not transfer $3,000.00 from 4242 4242 4242 4242 to 5555 5555 5555 4444: a human reviewer refused it (“The payee is not verified”). I will not retry it.',
  );
  await transferCall().getByText('Not run: it was refused.').waitFor();
  const run = await cs.run(`chat-${chatId}-1`);
  assert.equal(run.approvals[0]?.status, 'rejected');
  assert.equal(run.approvals[0]?.outcome?.message, 'The payee is not verified');
});

test('a decision the rules refuse shows in the chat with its reason, and the call as it is now', async () => {
  const chatId = await openChat();
  await ask('Transfer $4,000 from 4242 4242 4242 4242 to 5555 5555 5555 4444');
  await transferCall().getByRole('button', { name: 'Approve' }).waitFor();
  // Decided through another door while the chat still offers the buttons.
  await cs.settle(`chat-${chatId}-1.1`, { type: 'reject', message: 'Not today' });
  await transferCall().getByRole('button', { name: 'Approve' }).click();

  await lastAgentMessage().getByRole('alert').filter({ hasText: 'Your decision was refused (' }).waitFor();
  await agentSays('a human reviewer refused it (“Not today”)');
  assert.equal((await cs.run(`chat-${chatId}-1`)).approvals[0]?.status, 'rejected');
});

test('a transfer that needs the CFO as well waits in the chat, and goes on live when the CFO approves in the inbox', async () => {
  const chatId = await openChat();
  const trackingId = `chat-${chatId}-1.1`;
  await ask('Transfer $150,000 from 4242 4242 4242 4242 to 5555 5555 5555 4444');
  // The admin's sign-off is one of the two the large-transfer tier needs.
  await transferCall().getByRole('button', { name: 'Approve' }).click();
  await lastAgentMessage()
    .getByRole('status')
    .filter({ hasText: 'Waiting for 1 more of cfo or admin (1 of 2); signed by admin' })
    .waitFor();

  // The CFO, in a browser of their own: a browser keeps one sign-in for the inbox and the chat.
  const cfo = await browser.newContext();
  try {
    const inbox = await cfo.newPage();
    inbox.setDefaultTimeout(60_000);
    await signIn(inbox, cs.url, cs.countersign.cfoToken!);
    await inbox.goto(`${cs.url}/#/approvals/${encodeURIComponent(trackingId)}`);
    await inbox.getByRole('button', { name: 'Approve', exact: true }).click();
    await inbox.locator('section[aria-label="Outcome"] .chip', { hasText: 'approved' }).waitFor();
  } finally {
    await cfo.close();
  }

  await agentSays('Transferred $150,000.00 from 4242 4242 4242 4242 to 5555 5555 5555 4444.');
  await lastAgentMessage()
    .getByText('approved by admin (approve via chat), cfo (approve via inbox).')
    .waitFor();
  // Live: the stream that carried the admin's approval showed the CFO's, with no request of its own.
  assert.deepEqual(requests, ['POST /chat/api', 'POST /chat/api']);
});

test('a chat reloaded while it waits for the CFO resumes where the run is, then goes on live', async () => {
  const chatId = await openChat();
  const trackingId = `chat-${chatId}-1.1`;
  await ask('Transfer $120,000 from 4242 4242 4242 4242 to 5555 5555 5555 4444');
  await transferCall().getByRole('button', { name: 'Approve' }).click();
  await lastAgentMessage().getByRole('status').filter({ hasText: 'Waiting for 1 more' }).waitFor();

  requests = [];
  await page.reload();
  await page.locator('li.message.user', { hasText: 'Transfer $120,000' }).waitFor();
  await lastAgentMessage().getByRole('status').filter({ hasText: 'Waiting for 1 more' }).waitFor();
  await cs.settle(trackingId, { type: 'approve' }, cs.countersign.cfoToken!);

  await agentSays('Transferred $120,000.00 from 4242 4242 4242 4242 to 5555 5555 5555 4444.');
  assert.deepEqual(requests, [`GET /chat/api/${chatId}/stream`]);
});
