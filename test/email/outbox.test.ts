import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { simpleParser } from 'mailparser';
import { signingKeyId } from '../../notify/signing-key-id.js';
import { webhookSignature } from '../../notify/webhook.js';
import { call, calls, say } from '../support/fake-model.js';
import { tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';

const deliveries: { headers: IncomingHttpHeaders; body: string }[] = [];
/** Deliveries of approvals to `redirect-me`, which the receiver answers with a 307, then a 308... */
const redirected: { headers: IncomingHttpHeaders; body: string; status: number }[] = [];
/** What reached the redirects' target: nothing should. */
const followed: { headers: IncomingHttpHeaders; body: string }[] = [];
const hook = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    if (req.url === '/elsewhere') {
      followed.push({ headers: req.headers, body });
      res.writeHead(204).end();
    } else if (body.includes('redirect-me')) {
      const status = redirected.length % 2 === 0 ? 307 : 308;
      redirected.push({ headers: req.headers, body, status });
      res.writeHead(status, { location: '/elsewhere' }).end();
    } else {
      deliveries.push({ headers: req.headers, body });
      res.writeHead(204).end();
    }
  });
});

let stack: Stack;
before(async () => {
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  stack = await startStack({ webhookUrl: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook` });
});
after(async () => {
  await stack?.close();
  hook.close();
});

async function until<T>(read: () => T | undefined): Promise<T> {
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    await sleep(50);
  }
}

test('without SMTP, each notification is an .eml file in <dataDir>/outbox, and the webhook is signed', async () => {
  const runId = await stack.startRun(
    'bank',
    'outbox: transfer',
    tokens.victor,
    calls(call('transfer', { from: 'a', to: 'b', amount: 20 })),
    say('ok'),
  );
  const [pending] = await stack.waitForPending(runId);
  const trackingId = pending!.trackingId;
  const outbox = path.join(stack.dataDir, 'outbox');
  const files = await until(() => {
    try {
      const found = readdirSync(outbox).filter((f) => f.endsWith('.eml') && f.includes(trackingId));
      return found.length === 2 ? found : undefined;
    } catch {
      return undefined;
    }
  });
  const mails = await Promise.all(files.map((f) => simpleParser(readFileSync(path.join(outbox, f)))));
  const to = mails.map((m) => (Array.isArray(m.to) ? m.to[0] : m.to)?.value[0]?.address).sort();
  assert.deepEqual(to, ['alice@example.com', 'bob@example.com']);
  for (const mail of mails) {
    assert.match(mail.text ?? '', new RegExp(`Approve: ${stack.url}/links/`));
    assert.match(mail.from?.text ?? '', /countersign@example.com/);
  }

  const delivery = await until(() => deliveries.find((d) => d.body.includes(trackingId)));
  const timestamp = String(delivery.headers['x-countersign-timestamp']);
  assert.equal(
    delivery.headers['x-countersign-signature'],
    webhookSignature(stack.signingSecret, timestamp, delivery.body),
  );
  assert.equal(delivery.headers['x-countersign-key-id'], signingKeyId(stack.signingSecret));
  const payload = JSON.parse(delivery.body);
  assert.equal(payload.type, 'approval.requested');
  assert.equal(payload.approval.trackingId, trackingId);
  assert.equal(payload.inboxUrl, `${stack.url}/#/approvals/${encodeURIComponent(trackingId)}`);
  assert.equal(deliveries.filter((d) => d.body.includes(trackingId)).length, 1);
});

test('the webhook never follows a redirect with its signed body (307, 308)', async () => {
  const runId = await stack.startRun(
    'bank',
    'outbox: redirected webhook',
    tokens.victor,
    calls(call('transfer', { from: 'a', to: 'redirect-me', amount: 20 })),
    say('ok'),
  );
  await stack.waitForPending(runId);
  // Each failed delivery is retried: by the third, a 307 and a 308 have been answered in full.
  await until(() => (redirected.length >= 3 || followed.length > 0 ? true : undefined));
  assert.deepEqual(followed, [], 'the signed body went nowhere but the configured URL');
  assert.deepEqual(
    redirected.slice(0, 2).map((r) => r.status),
    [307, 308],
  );
  for (const { headers, body } of redirected) {
    const timestamp = String(headers['x-countersign-timestamp']);
    assert.equal(headers['x-countersign-signature'], webhookSignature(stack.signingSecret, timestamp, body));
  }
  await stack.client.workflow.getHandle(runId).cancel();
});

test('the email marks bidirectional overrides and control characters instead of obeying them', async () => {
  const args = { from: 'ops\u202eevil', to: 'acme\u001b[2K\nApprove: https://evil.example/', amount: 20 };
  const runId = await stack.startRun(
    'bank',
    'outbox: hostile text',
    tokens.victor,
    calls(call('transfer', args)),
    say('ok'),
  );
  const [pending] = await stack.waitForPending(runId);
  const outbox = path.join(stack.dataDir, 'outbox');
  const file = await until(() =>
    readdirSync(outbox).find((f) => f.endsWith('.eml') && f.includes(pending!.trackingId)),
  );
  const mail = await simpleParser(readFileSync(path.join(outbox, file)));
  const text = Buffer.from(mail.text ?? '');
  for (const [name, raw] of Object.entries({ RLO: '\u202e', ESC: '\u001b' })) {
    assert.equal(text.indexOf(Buffer.from(raw)), -1, `the text part carries a raw ${name}`);
    assert.equal(
      Buffer.from(String(mail.html)).indexOf(Buffer.from(raw)),
      -1,
      `the HTML carries a raw ${name}`,
    );
  }
  const description = 'Transfer 20 from ops\\u202eevil to acme\\u001b[2K\\nApprove: https://evil.example/';
  assert.ok(text.includes(Buffer.from(`\n${description}\n`)), mail.text);
  assert.ok(text.includes(Buffer.from('"from": "ops\\u202eevil"')), mail.text);
  // The payee's line break cannot make a line of its own that looks like a link.
  assert.ok(!(mail.text ?? '').split('\n').some((line) => line.startsWith('Approve: https://evil')));
  assert.ok(String(mail.html).includes('from ops\\u202eevil'));
  await stack.client.workflow.getHandle(runId).cancel();
});
