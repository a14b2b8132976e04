import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { simpleParser } from 'mailparser';
import { webhookSignature } from '../../notify/webhook.js';
import { call, calls, say } from '../support/fake-model.js';
import { tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';

const deliveries: { headers: IncomingHttpHeaders; body: string }[] = [];
const hook = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    deliveries.push({ headers: req.headers, body });
    res.writeHead(204).end();
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
  const payload = JSON.parse(delivery.body);
  assert.equal(payload.type, 'approval.requested');
  assert.equal(payload.approval.trackingId, trackingId);
  assert.equal(payload.inboxUrl, `${stack.url}/#/approvals/${encodeURIComponent(trackingId)}`);
  assert.equal(deliveries.filter((d) => d.body.includes(trackingId)).length, 1);
});
