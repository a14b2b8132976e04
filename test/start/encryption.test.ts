// `npm start` with COUNTERSIGN_PAYLOAD_KEYS: the worker, the API's client and its codec endpoint
// share the key, so the demo runs as before while Temporal stores ciphertext.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { startCountersign } from '../../demo/main/start.js';
import { Running, testEnv } from './running.js';

const History = proto.temporal.api.history.v1.History;
const INPUT = 'Transfer $2,500 from 4242 4242 4242 4242 to 5555 5555 5555 4444';

test('npm start encrypts every payload when COUNTERSIGN_PAYLOAD_KEYS is set', async () => {
  const key = randomBytes(32).toString('base64');
  const cs = await Running.start(undefined, {
    COUNTERSIGN_PAYLOAD_KEYS: `demo-1:${key}`,
    COUNTERSIGN_CODEC_CORS_ORIGINS: 'http://localhost:8233',
  });
  const connection = await Connection.connect({ address: cs.countersign.temporalAddress });
  try {
    assert.match(cs.countersign.banner, /Encryption: {3}payloads encrypted with key demo-1/);
    assert.equal(cs.countersign.banner.includes(key), false, 'the banner never shows a key');
    const runId = await cs.startRun('bank-transfer', INPUT);
    const approval = await cs.pendingOne(runId);
    assert.equal(approval.tool, 'transfer');
    const list = await cs.api<{ approvals: { trackingId: string }[] }>('GET', '/api/approvals');
    assert.equal(list.status, 200);

    // What the server stores, read without the key.
    const raw = new Client({ connection });
    const history = await raw.workflow.getHandle(runId).fetchHistory();
    const bytes = Buffer.from(History.encode(History.fromObject(history)).finish());
    for (const plain of ['4242 4242', '5555 5555', '$2,500'])
      assert.equal(bytes.includes(plain), false, plain);

    // The codec endpoint reads it back for the admin; the Web UI origin may ask from a browser.
    const input = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
    const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
    const decoded = await cs.api<{ payloads: { data: string }[] }>('POST', '/api/codec/decode', {
      payloads: [
        {
          metadata: Object.fromEntries(Object.entries(input.metadata!).map(([k, v]) => [k, base64(v)])),
          data: base64(input.data!),
        },
      ],
    });
    assert.equal(decoded.status, 200);
    assert.ok(Buffer.from(decoded.body.payloads[0]!.data, 'base64').toString().includes(INPUT));
    const preflight = await fetch(`${cs.url}/api/codec/decode`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:8233', 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.status, 204);

    await cs.settle(approval.trackingId, { type: 'approve' });
    const run = await cs.finished(runId);
    assert.match(run.output ?? '', /transfer/i);
  } finally {
    await connection.close();
    await cs.stop();
  }
});

test('npm start refuses a bad key, naming the variable and never the key', async () => {
  const short = randomBytes(16).toString('base64');
  const dir = mkdtempSync(path.join(tmpdir(), 'countersign-start-'));
  try {
    await assert.rejects(
      startCountersign({
        env: { ...testEnv(dir), COUNTERSIGN_PAYLOAD_KEYS: `k1:${short}` },
        port: 0,
        devServerPorts: { port: 0, uiPort: 0 },
      }),
      (error: Error) => {
        assert.match(error.message, /COUNTERSIGN_PAYLOAD_KEYS: key k1 is 16 bytes; AES-256 needs 32/);
        assert.equal(error.message.includes(short), false);
        return true;
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
