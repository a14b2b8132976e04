import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startCountersign } from '../../demo/main/start.js';
import { signingKeyId } from '../../notify/signing-key-id.js';
import { pickPort } from '../../demo/main/temporal.js';
import { Running, testEnv } from './running.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'countersign-start-'));
mkdirSync(path.join(dataDir, 'outbox'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

/** The run body of the curl the banner prints. */
function curlBody(banner: string): { agent: string; input: string } {
  const match = /-d '(\{.*\})'/.exec(banner);
  assert.ok(match, 'the banner has a curl with a JSON body');
  return JSON.parse(match[1]!) as { agent: string; input: string };
}

/** The notification is sent beside the approval request, so it may land a moment after. */
async function outboxMail(trackingId: string): Promise<string[]> {
  for (;;) {
    const found = readdirSync(path.join(dataDir, 'outbox'), { withFileTypes: true })
      .map((entry) => entry.name)
      // A message being written is `<name>.eml.partial` until it is renamed: not yet mail.
      .filter((name) => name.includes(trackingId) && name.endsWith('.eml'));
    if (found.length > 0) return found;
    await sleep(100);
  }
}

let pendingAcrossRestart = '';
let firstToken = '';
let firstRun = '';

test('npm start: banner, then one run from the printed curl through an approval to the end', async () => {
  const cs = await Running.start(dataDir);
  try {
    const { banner } = cs.countersign;
    assert.ok(banner.includes(`Inbox:        ${cs.url}/`));
    assert.ok(banner.includes(`Admin token:  ${cs.token}`));
    assert.ok(banner.includes(path.join(dataDir, 'outbox')));
    assert.match(banner, /OFFLINE DEMO MODEL/);
    assert.match(banner, /curl -s -X POST .*\/api\/runs/);
    assert.equal(readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim(), cs.token);
    // What several instances must share, as ids an operator compares between them.
    const secret = readFileSync(path.join(dataDir, 'signing-secret'), 'utf8').trim();
    assert.ok(banner.includes(`Signing key:  id ${signingKeyId(secret)}`));
    const storeId = readFileSync(path.join(dataDir, 'content', 'store-id'), 'utf8').trim();
    assert.ok(banner.includes(`Outputs:      ${path.join(dataDir, 'content')}, store id ${storeId}`));
    firstToken = cs.token;

    const { agent, input } = curlBody(banner);
    const runId = await cs.startRun(agent, input);
    firstRun = runId;
    const approval = await cs.pendingOne(runId);
    assert.equal(approval.tool, 'transfer');
    const emails = await outboxMail(approval.trackingId);
    assert.equal(emails.length, 1, 'the admin was emailed into the outbox');
    assert.match(readFileSync(path.join(dataDir, 'outbox', emails[0]!), 'utf8'), /wants to call transfer/);
    await cs.settle(approval.trackingId, { type: 'approve' });
    const run = await cs.finished(runId);
    assert.match(run.output!, /^\[offline demo model\] Transferred \$2,500\.00/);

    // The real Temporal's Web UI, named in the banner, shows the run (through its own HTTP API).
    const ui = cs.countersign.temporalUiUrl!;
    assert.ok(banner.includes(`Temporal UI:  ${ui}`));
    const shown = await fetch(`${ui}/api/v1/namespaces/default/workflows/${runId}`);
    assert.equal(shown.status, 200);
    assert.match(await shown.text(), /agentWorkflow/);

    // Left waiting on purpose: it must still be waiting after a restart.
    pendingAcrossRestart = await cs.startRun(agent, input);
    await cs.pendingOne(pendingAcrossRestart);
  } finally {
    await cs.stop();
  }
});

test('a restart keeps runs, pending approvals and the admin token', async () => {
  assert.ok(pendingAcrossRestart);
  const cs = await Running.start(dataDir);
  try {
    assert.equal(cs.token, firstToken);
    const approval = await cs.pendingOne(pendingAcrossRestart);
    await cs.settle(approval.trackingId, { type: 'approve' });
    // The ledger survived too: the second transfer starts from the first one's balances.
    assert.match((await cs.finished(pendingAcrossRestart)).output!, /4242 4242 4242 4242: \$995,000\.00/);
    const { body } = await cs.api<{ runs: { runId: string; status: string }[] }>('GET', '/api/runs');
    const ours = body.runs.filter((r) => r.runId === firstRun || r.runId === pendingAcrossRestart);
    assert.deepEqual(
      ours.map((r) => r.status),
      ['completed', 'completed'],
    );
  } finally {
    await cs.stop();
  }
});

test('the signing secret and the content store directory several instances share are taken from the environment', async () => {
  const shared = mkdtempSync(path.join(tmpdir(), 'countersign-shared-content-'));
  const secret = 'a-signing-secret-every-instance-shares-0123456789';
  const cs = await Running.start(undefined, {
    COUNTERSIGN_SIGNING_SECRET: secret,
    COUNTERSIGN_CONTENT_DIR: shared,
  });
  try {
    const { banner } = cs.countersign;
    assert.ok(banner.includes(`Signing key:  id ${signingKeyId(secret)}`), banner);
    const storeId = readFileSync(path.join(shared, 'store-id'), 'utf8').trim();
    assert.ok(banner.includes(`Outputs:      ${shared}, store id ${storeId}`), banner);
    assert.deepEqual(
      readdirSync(cs.dataDir).filter((name) => name === 'content' || name === 'signing-secret'),
      [],
    );
  } finally {
    await cs.stop();
    rmSync(shared, { recursive: true, force: true });
  }
});

test('a port in use is named, with how to change it', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as AddressInfo).port;
  try {
    await assert.rejects(
      startCountersign({ env: testEnv(dataDir), port, devServerPorts: { port: 0, uiPort: 0 } }),
      (error: Error) => error.message.includes(`port ${port}`) && error.message.includes('PORT='),
    );
  } finally {
    blocker.close();
  }
});

test("Temporal's default port in use: one plain line for the banner, and a free port instead", async () => {
  const blocker = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const held = (blocker.address() as AddressInfo).port;
  try {
    const notes: string[] = [];
    assert.equal(await pickPort(held, "Temporal's", notes), 0, 'a free port, chosen when the server starts');
    assert.deepEqual(notes, [
      `Temporal's port ${held} is in use by another process; using a free port instead`,
    ]);
    blocker.close();
    await new Promise((resolve) => blocker.once('close', resolve));
    const none: string[] = [];
    assert.equal(await pickPort(held, "Temporal's", none), held);
    assert.deepEqual(none, []);
  } finally {
    blocker.close();
  }
});

test('requests fired from the moment the port accepts are each answered: 503 with Retry-After until ready', async (t) => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));

  // Fired before the start and on until twenty have been answered 200. One left hanging fails the
  // test at its own generous bound; the slowest answer is reported, not asserted.
  const answers: { status: number; retryAfter: string | null; code?: string }[] = [];
  let slowestMs = 0;
  let refused = 0;
  const firing = (async () => {
    while (answers.filter((a) => a.status === 200).length < 20) {
      const sent = performance.now();
      try {
        const response = await fetch(`http://127.0.0.1:${port}/api/openapi.json`, {
          signal: AbortSignal.timeout(60_000),
        });
        const body = (await response.json()) as { error?: { code?: string } };
        slowestMs = Math.max(slowestMs, performance.now() - sent);
        answers.push({
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          code: body.error?.code,
        });
        if (response.status === 503) await sleep(5);
      } catch (err) {
        if ((err as { cause?: { code?: string } }).cause?.code !== 'ECONNREFUSED') throw err;
        refused++;
        await sleep(5);
      }
    }
  })();
  const countersign = await startCountersign({
    env: testEnv(mkdtempSync(path.join(tmpdir(), 'countersign-start-'))),
    port,
    devServerPorts: { port: 0, uiPort: 0 },
  });
  try {
    await firing;
    t.diagnostic(`slowest answer ${slowestMs.toFixed(0)} ms; ${refused} refused before the port listened`);
    const starting = answers.filter((a) => a.status !== 200);
    assert.ok(starting.length > 0, 'requests were answered while Countersign started');
    assert.deepEqual(
      [...new Set(starting.map((a) => `${a.status} retry-after=${a.retryAfter} ${a.code}`))],
      ['503 retry-after=2 starting'],
    );
    const firstReady = answers.findIndex((a) => a.status === 200);
    assert.ok(
      answers.slice(firstReady).every((a) => a.status === 200),
      'once ready, every request is served',
    );
  } finally {
    await countersign.stop();
  }
});
