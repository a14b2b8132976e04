import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { SealedSecret } from '../../protocol/index.js';
import { loadSecretKeys, secretSealer } from '../../secrets/sealer.js';
import { withholder, withholdInError, withholdInOutput } from '../../activities/withhold-secrets.js';

const s1 = randomBytes(32);
const s2 = randomBytes(32);
const binding = { trackingId: 'run-1.3', name: 'db_password' };
const value = 'correct horse battery staple';

test('a sealed secret opens only for its approval and name, and holds no plain text', () => {
  const sealer = secretSealer({ keys: { s1 }, encryptWith: 's1' });
  const sealed = sealer.seal(value, binding);
  assert.ok(SealedSecret.safeParse(sealed).success, sealed);
  assert.equal(sealed.includes(value), false);
  assert.notEqual(sealer.seal(value, binding), sealed, 'a fresh IV each time');
  assert.equal(sealer.open(sealed, binding), value);
  assert.throws(() => sealer.open(sealed, { ...binding, trackingId: 'run-2.3' }), /does not open/);
  assert.throws(() => sealer.open(sealed, { ...binding, name: 'otp' }), /does not open/);
  const [version, id, data] = sealed.split(':');
  const flipped = Buffer.from(data!, 'base64url');
  flipped[20]! ^= 1;
  assert.throws(
    () => sealer.open(`${version}:${id}:${flipped.toString('base64url')}`, binding),
    /does not open/,
  );
  // Passed off under another key id: the id is authenticated too.
  const other = secretSealer({ keys: { s1, s2: s1 }, encryptWith: 's1' });
  assert.throws(() => other.open(`${version}:s2:${data}`, binding), /does not open/);
});

test('keys rotate: the new key seals, the old one still opens; an unknown key is named, never a value', () => {
  const before = secretSealer({ keys: { s1 }, encryptWith: 's1' });
  const sealedBefore = before.seal(value, binding);
  const rotated = secretSealer({ keys: { s2, s1 }, encryptWith: 's2' });
  assert.equal(rotated.open(sealedBefore, binding), value);
  const sealedAfter = rotated.seal(value, binding);
  assert.match(sealedAfter, /^cs1:s2:/);
  const error = (() => {
    try {
      before.open(sealedAfter, binding);
    } catch (err) {
      return (err as Error).message;
    }
  })();
  assert.match(error ?? '', /sealed with key "s2", which this worker does not hold \(it holds s1\)/);
  assert.equal(error?.includes(value), false);
});

test('secret keys come from COUNTERSIGN_SECRET_KEYS, checked, and never echoed', () => {
  assert.equal(loadSecretKeys({}), undefined);
  const keys = loadSecretKeys({
    COUNTERSIGN_SECRET_KEYS: `s2:${s2.toString('base64')},s1:${s1.toString('base64')}`,
  });
  assert.equal(keys?.encryptWith, 's2');
  const short = randomBytes(16).toString('base64');
  assert.throws(
    () => loadSecretKeys({ COUNTERSIGN_SECRET_KEYS: `s1:${short}` }),
    (err: Error) =>
      /COUNTERSIGN_SECRET_KEYS: key s1 is 16 bytes/.test(err.message) && !err.message.includes(short),
  );
});

test('what a tool lets slip is withheld: output keys and values, error message and stack', () => {
  const withhold = withholder([value, 'abc']);
  assert.deepEqual(
    withholdInOutput(
      { [value]: [`connected as ${value}`, 7, null], note: 'abc is too short to search' },
      withhold,
    ),
    { '[secret withheld]': ['connected as [secret withheld]', 7, null], note: 'abc is too short to search' },
  );
  const error = withholdInError(new TypeError(`login refused for ${value}`), withhold);
  assert.equal(error.name, 'TypeError');
  assert.equal(error.message, 'login refused for [secret withheld]');
  assert.equal(error.stack?.includes(value), false);
});
