// The payload codec and its key loading, without Temporal: what it writes, what it refuses, and
// that no error ever carries a key.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { corsOrigins } from '../../api/codec-cors.js';
import { aesGcmCodec, ENCRYPTED_ENCODING, ENCRYPTION_KEY_ID } from '../../codec/aes-gcm-codec.js';
import { loadPayloadKeys } from '../../codec/env-keys.js';

const k1 = randomBytes(32);
const k2 = randomBytes(32).toString('base64');
const codec = aesGcmCodec({ keys: { k1 }, encryptWith: 'k1' });
const text = (bytes: Uint8Array | null | undefined) => new TextDecoder().decode(bytes ?? new Uint8Array());
const secret = 'the launch code is 0000';
const payload = (): Payload => ({
  ...defaultPayloadConverter.toPayload({ secret }),
  metadata: { ...defaultPayloadConverter.toPayload({ secret }).metadata, custom: new Uint8Array([1, 2, 3]) },
});

/** The error `fn` throws or rejects with. */
async function failure(fn: () => unknown): Promise<Error> {
  try {
    await fn();
  } catch (error) {
    return error as Error;
  }
  assert.fail('expected an error');
}

describe('aesGcmCodec', () => {
  test('encrypts the whole payload, marked with its key, and decrypts it back as it was', async () => {
    const original = payload();
    const [sealed] = await codec.encode([original]);
    assert.deepEqual(Object.keys(sealed!.metadata!).sort(), ['encoding', ENCRYPTION_KEY_ID].sort());
    assert.equal(text(sealed!.metadata!.encoding), ENCRYPTED_ENCODING);
    assert.equal(text(sealed!.metadata![ENCRYPTION_KEY_ID]), 'k1');
    assert.equal(Buffer.from(sealed!.data!).includes(secret), false);
    assert.equal(Buffer.from(sealed!.data!).includes('json/plain'), false, 'the metadata is encrypted too');
    const [opened] = await codec.decode([sealed!]);
    const bytes = (p: Payload) => ({
      metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v)])),
      data: Buffer.from(p.data ?? []),
    });
    assert.deepEqual(bytes(opened!), bytes(original));
    assert.deepEqual(defaultPayloadConverter.fromPayload(opened!), { secret });
  });

  test('uses a fresh 12-byte IV for every payload', async () => {
    const [a, b] = await codec.encode([payload(), payload()]);
    assert.notDeepEqual(Buffer.from(a!.data!), Buffer.from(b!.data!));
    assert.notDeepEqual(Buffer.from(a!.data!).subarray(0, 12), Buffer.from(b!.data!).subarray(0, 12));
  });

  test('passes through payloads it did not encrypt (histories from before encryption)', async () => {
    const plain = defaultPayloadConverter.toPayload('older run');
    const [same] = await codec.decode([plain]);
    assert.equal(same, plain);
  });

  test('refuses a key it does not hold, naming it, and altered data', async () => {
    const [sealed] = await codec.encode([payload()]);
    const other = aesGcmCodec({ keys: { k9: randomBytes(32) }, encryptWith: 'k9' });
    const missing = await failure(() => other.decode([sealed!]));
    assert.match(missing.message, /encrypted with key "k1", which this codec does not hold \(it holds k9\)/);

    const altered = Buffer.from(sealed!.data!);
    altered[altered.length - 20] = altered[altered.length - 20]! ^ 1;
    const tampered = await failure(() => codec.decode([{ ...sealed!, data: altered }]));
    assert.match(tampered.message, /key "k1" does not authenticate/);

    // The key id is authenticated: the same ciphertext under another id of the same key fails.
    const twin = aesGcmCodec({ keys: { k1, alias: k1 }, encryptWith: 'k1' });
    const renamed = {
      ...sealed!,
      metadata: { ...sealed!.metadata, [ENCRYPTION_KEY_ID]: Buffer.from('alias') },
    };
    assert.match((await failure(() => twin.decode([renamed]))).message, /"alias" does not authenticate/);
    const short = { ...sealed!, data: new Uint8Array(10) };
    assert.match((await failure(() => codec.decode([short]))).message, /too short/);
  });

  test('reads what older keys encrypted after a rotation, and encrypts with the new one', async () => {
    const [old] = await codec.encode([payload()]);
    const rotated = aesGcmCodec({ keys: { k2, k1 }, encryptWith: 'k2' });
    assert.deepEqual(defaultPayloadConverter.fromPayload((await rotated.decode([old!]))[0]!), { secret });
    const [fresh] = await rotated.encode([payload()]);
    assert.equal(text(fresh!.metadata![ENCRYPTION_KEY_ID]), 'k2');
  });

  test('checks its keys when built, and no error shows one', async () => {
    const shortKey = randomBytes(16).toString('base64');
    const cases: [() => unknown, RegExp][] = [
      [
        () => aesGcmCodec({ keys: { k1: shortKey }, encryptWith: 'k1' }),
        /key k1 is 16 bytes; AES-256 needs 32/,
      ],
      [() => aesGcmCodec({ keys: { k1: 'not base64!' }, encryptWith: 'k1' }), /key k1 is not base64/],
      [
        () => aesGcmCodec({ keys: { k1 }, encryptWith: 'k2' }),
        /encryptWith "k2" is not one of the keys \(k1\)/,
      ],
      [() => aesGcmCodec({ keys: {}, encryptWith: 'k1' }), /at least one key/],
      [() => aesGcmCodec({ keys: { 'bad id': k1 }, encryptWith: 'bad id' }), /key id "bad id" must be/],
    ];
    for (const [build, message] of cases) {
      const error = await failure(build);
      assert.ok(error instanceof TypeError);
      assert.match(error.message, message);
      for (const key of [shortKey, k1.toString('base64'), k2])
        assert.equal(error.message.includes(key), false);
    }
    // A codec printed or logged shows no key either.
    assert.equal(JSON.stringify(codec).includes(k1.toString('base64')), false);
  });
});

describe('loadPayloadKeys', () => {
  const keyA = randomBytes(32).toString('base64');
  const keyB = randomBytes(32).toString('base64');

  test('is off when the variable is unset or empty', () => {
    assert.equal(loadPayloadKeys({}), undefined);
    assert.equal(loadPayloadKeys({ COUNTERSIGN_PAYLOAD_KEYS: '  ' }), undefined);
  });

  test('reads keyId:base64 entries, the first the one that encrypts', async () => {
    const options = loadPayloadKeys({ COUNTERSIGN_PAYLOAD_KEYS: ` k2:${keyA} , k1:${keyB}` });
    assert.deepEqual(options, { keys: { k2: keyA, k1: keyB }, encryptWith: 'k2' });
    const [sealed] = await aesGcmCodec(options!).encode([payload()]);
    assert.equal(text(sealed!.metadata![ENCRYPTION_KEY_ID]), 'k2');
    assert.deepEqual(loadPayloadKeys({ MY_KEYS: `a:${keyA}` }, 'MY_KEYS'), {
      keys: { a: keyA },
      encryptWith: 'a',
    });
  });

  test('names the variable and the entry when one is wrong, never a key', () => {
    const short = randomBytes(8).toString('base64');
    for (const [value, message] of [
      [keyA, /COUNTERSIGN_PAYLOAD_KEYS: entry 1 is not keyId:base64/],
      [`k1:${keyA},:${keyB}`, /entry 2 is not keyId:base64/],
      [`k1:${keyA},k1:${keyB}`, /key id k1 is given twice/],
      [`k1:${keyA},k0:${short}`, /COUNTERSIGN_PAYLOAD_KEYS: key k0 is 8 bytes/],
    ] as const) {
      assert.throws(
        () => loadPayloadKeys({ COUNTERSIGN_PAYLOAD_KEYS: value }),
        (error: Error) => {
          assert.match(error.message, message);
          for (const key of [keyA, keyB, short]) assert.equal(error.message.includes(key), false);
          return true;
        },
      );
    }
  });
});

test('codecCorsOrigins takes exact web origins only', () => {
  assert.deepEqual(
    [...corsOrigins(['https://temporal.example.com', 'http://localhost:8233'])],
    ['https://temporal.example.com', 'http://localhost:8233'],
  );
  for (const bad of [
    '*',
    'https://temporal.example.com/',
    'https://x.example/ui',
    'localhost:8233',
    'file:///x',
  ]) {
    assert.throws(() => corsOrigins([bad]), TypeError, bad);
  }
});
