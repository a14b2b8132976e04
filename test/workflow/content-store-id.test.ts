// A content store's id: made once in a directory and read by every store on it, derived from
// bucket and prefix for S3. A worker whose store lacks an output kept in another store says which
// setting differs, and leaves the call to be tried again (another worker may hold the right store).
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { S3Client } from '@aws-sdk/client-s3';
import { ApplicationFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createCallModel } from '../../activities/call-model.js';
import { fileContentStore } from '../../content-store/content-store.js';
import { s3ContentStore } from '../../content-store/s3-content-store.js';
import { storedOutput } from '../../protocol/stored-output.js';

const root = mkdtempSync(path.join(tmpdir(), 'countersign-store-id-'));
after(() => rmSync(root, { recursive: true, force: true }));
const dir = (name: string) => path.join(root, name);

test('a directory keeps one id for every store on it, and another directory has another', async () => {
  const first = await fileContentStore(dir('one')).id();
  assert.equal(await fileContentStore(dir('one')).id(), first);
  assert.notEqual(await fileContentStore(dir('two')).id(), first);
});

test('stores created together on one new directory agree on its id, leaving one file', async () => {
  const stores = Array.from({ length: 16 }, () => fileContentStore(dir('together')));
  const ids = await Promise.all(stores.map((store) => store.id()));
  assert.equal(new Set(ids).size, 1, ids.join(', '));
  assert.deepEqual(readdirSync(dir('together')), ['store-id']);
});

test('an S3 store is named by its bucket and prefix, without a call to S3', async () => {
  // Any call to S3 would throw: the id is derived, never written or read.
  const client = {} as S3Client;
  const id = (bucket: string, prefix?: string) => s3ContentStore({ client, bucket, prefix }).id();
  assert.equal(await id('outputs', 'prod/'), await id('outputs', 'prod/'));
  assert.notEqual(await id('outputs', 'prod/'), await id('outputs', 'staging/'));
  assert.notEqual(await id('outputs'), await id('other'));
  assert.doesNotMatch(await id('outputs', 'prod/'), /outputs|prod/, 'transcripts do not name the bucket');
});

test('a worker whose store lacks an output kept in another store names the setting, and the call is tried again', async () => {
  const theirs = fileContentStore(dir('theirs'));
  const ours = fileContentStore(dir('ours'));
  const text = 'x'.repeat(20_000);
  const marker = storedOutput(await theirs.put(text), text.length, await theirs.id());
  const oursId = await ours.id();
  const callModel = createCallModel({ baseUrl: 'http://127.0.0.1:9/v1' }, ours);
  const input = {
    model: 'fake-model',
    messages: [
      { role: 'user' as const, content: 'Read it.' },
      { role: 'tool' as const, tool_call_id: 'c1', content: JSON.stringify(marker) },
    ],
    tools: [],
    storedOutputs: [marker.ref],
  };
  // The failure is the point: the SDK's warning that the activity failed is not.
  const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  await assert.rejects(env.run(callModel, input), (err: unknown) => {
    assert.ok(err instanceof ApplicationFailure, String(err));
    assert.equal(err.type, 'ContentStoreMismatch');
    assert.equal(err.nonRetryable, false);
    assert.equal(
      err.message,
      `output ${marker.ref} was stored in content store ${marker.store}; this worker's store is ${oursId} (${dir('ours')}): every worker and API of a task queue must share one contentStore (npm start: <data dir>/content)`,
    );
    return true;
  });
});
