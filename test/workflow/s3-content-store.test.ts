// s3ContentStore through the real AWS SDK, over HTTP, against moto's S3 server: the store alone,
// then a run whose large tool output goes to S3 and comes back whole to the model.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { z } from 'zod';
import { startRun } from '../../client/index.js';
import { storedOutputOf } from '../../protocol/stored-output.js';
import { defineAgent, defineTool } from '../../define/index.js';
import { fileContentStore } from '../../content-store/content-store.js';
import { s3ContentStore } from '../../content-store/s3-content-store.js';
import { call, calls, say } from '../support/fake-model.js';
import { startFakeS3, type FakeS3 } from '../support/fake-s3.js';
import { startHarness, toolMessages, uniqueInput, type Harness } from './fixtures/harness.js';

/** About 200 KB, with multi-byte characters: what comes back must be the same text, not the same length. */
const bigText = (seed: string) => `${seed}\n${'log line ✓ 日志 '.repeat(10_000)}`;

let s3: FakeS3;
let h: Harness;
before(async () => {
  s3 = await startFakeS3();
  h = await startHarness({ worker: false });
});
after(async () => {
  await h?.close();
  await s3?.stop();
});

const digest = (ref: string) => ref.slice('sha256:'.length);
const keysUnder = async (prefix: string) =>
  (
    (await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }))).Contents ?? []
  ).map((object) => object.Key);

test('a 200 KB text goes to S3 under the prefix and its SHA-256, and comes back the same', async () => {
  const prefix = `round-trip-${randomUUID()}/`;
  const store = s3ContentStore({ client: s3.client, bucket: s3.bucket, prefix });
  const text = bigText('round trip');
  assert.ok(Buffer.byteLength(text) > 200_000);

  const ref = await store.put(text);
  assert.match(ref, /^sha256:[0-9a-f]{64}$/);
  assert.equal(await store.get(ref), text);
  assert.deepEqual(await keysUnder(prefix), [`${prefix}${digest(ref)}`]);
  // Another worker, with its own client on the same bucket and prefix, reads it too.
  const object = await s3.client.send(
    new GetObjectCommand({ Bucket: s3.bucket, Key: `${prefix}${digest(ref)}` }),
  );
  assert.equal(await object.Body!.transformToString('utf-8'), text);
});

test('the same text stored twice is one object under one reference, the one fileContentStore gives', async () => {
  const prefix = `twice-${randomUUID()}/`;
  const store = s3ContentStore({ client: s3.client, bucket: s3.bucket, prefix });
  const text = bigText('twice');
  const first = await store.put(text);
  const second = await store.put(text);
  assert.equal(second, first);
  assert.equal((await keysUnder(prefix)).length, 1);
  const files = fileContentStore(mkdtempSync(path.join(tmpdir(), 'countersign-content-')));
  assert.equal(await files.put(text), first);
  assert.notEqual(await store.put(`${text}.`), first);
});

test('a reference the bucket does not have is refused, naming bucket and key and asking whether workers share the store', async () => {
  const store = s3ContentStore({ client: s3.client, bucket: s3.bucket });
  const ref = `sha256:${'ab'.repeat(32)}`;
  await assert.rejects(store.get(ref), (error: Error) => {
    assert.ok(error.message.includes(`bucket ${s3.bucket}`), error.message);
    assert.ok(error.message.includes(`key countersign/content/${'ab'.repeat(32)}`), error.message);
    assert.match(error.message, /do all workers share it/);
    return true;
  });
});

test('a malformed reference is refused as fileContentStore refuses it, before any call to S3', async () => {
  const store = s3ContentStore({ client: s3.client, bucket: 'no-such-bucket' });
  const files = fileContentStore(mkdtempSync(path.join(tmpdir(), 'countersign-content-')));
  for (const ref of [
    'sha256:abc',
    `sha1:${'a'.repeat(40)}`,
    `sha256:${'A'.repeat(64)}`,
    '../../etc/passwd',
  ]) {
    const expected = await files.get(ref).then(
      () => assert.fail(`fileContentStore took ${ref}`),
      (error: Error) => error.message,
    );
    assert.match(expected, /^not a content reference: /);
    await assert.rejects(store.get(ref), { message: expected });
  }
});

test('a run on a worker with an S3 store keeps a reference, and the model reads the whole tool output back', async () => {
  const output = bigText('fetched log');
  const fetchLog = defineTool({
    name: 'fetch_log',
    description: 'Fetch a log.',
    parameters: z.object({ id: z.string() }),
    safe: true,
    execute: async () => output,
  });
  const agent = defineAgent({
    name: 's3-reader',
    description: 'Reads logs.',
    instructions: 'You read logs.',
    model: 'fake-model',
    tools: [fetchLog],
  });
  const prefix = `run-${randomUUID()}/`;
  const worker = await h.startWorker([agent], {
    contentStore: s3ContentStore({ client: s3.client, bucket: s3.bucket, prefix }),
  });
  const input = uniqueInput('s3 read');
  const conversation = h.fake.script(input, calls(call('fetch_log', { id: 'l1' }, 'f1')), say('Read it.'));
  const { runId } = await startRun(h.client, { agent, input, taskQueue: worker.taskQueue });
  const result = await h.result(runId);
  assert.equal(result.status, 'completed', result.reason);

  // The model's second call got the output whole, read back from S3.
  const tool = conversation.requests.at(-1)!.messages.find((m) => m.role === 'tool')!;
  assert.equal(tool.content, output);
  // The run itself holds only the reference and the size, as its worker's; the object is in the bucket.
  const content = toolMessages(result.state!).get('f1')!;
  const stored = storedOutputOf({ role: 'tool', tool_call_id: 'f1', content }, result.state!.storedOutputs);
  assert.ok(stored, 'the transcript holds a stored-output reference the run recorded');
  assert.equal(stored.bytes, Buffer.byteLength(output));
  assert.deepEqual(await keysUnder(prefix), [`${prefix}${digest(stored.ref)}`]);
});
