import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { signLink, verifyLink } from '../../notify/links.js';
import { signingKeyId } from '../../notify/signing-key-id.js';
import { rewriteLinkPayload } from '../support/link-tokens.js';

const secret = 'unit-test-secret-0123456789abcdef-0123456789';
const claims = {
  trackingId: 'run-abc.3',
  approverId: 'alice',
  action: 'approve' as const,
  expiresAt: Date.now() + 60_000,
};

test('a signed link verifies and carries its tracking id, approver, action, expiry and a nonce', () => {
  const token = signLink(secret, claims);
  const result = verifyLink(secret, token);
  assert.ok(result.ok);
  assert.deepEqual({ ...result.claims, nonce: undefined }, { ...claims, nonce: undefined });
  assert.ok(result.claims.nonce.length >= 16);
});

test('each link gets its own nonce', () => {
  const a = verifyLink(secret, signLink(secret, claims));
  const b = verifyLink(secret, signLink(secret, claims));
  assert.ok(a.ok && b.ok);
  assert.notEqual(a.claims.nonce, b.claims.nonce);
});

test('forged, tampered, truncated and expired links are refused', () => {
  const token = signLink(secret, claims);
  const [payload, signature] = token.split('.') as [string, string];
  const altered = Buffer.from(
    Buffer.from(payload, 'base64url').toString().replace('"approve"', '"reject"'),
  ).toString('base64url');
  assert.deepEqual(verifyLink(secret, `${altered}.${signature}`), { ok: false, reason: 'invalid' });
  assert.deepEqual(verifyLink(secret, payload), { ok: false, reason: 'invalid' });
  assert.deepEqual(verifyLink(secret, `${token}.x`), { ok: false, reason: 'invalid' });
  assert.deepEqual(verifyLink(secret, `${payload}.${signature.slice(0, -2)}`), {
    ok: false,
    reason: 'invalid',
  });
  const expired = verifyLink(secret, signLink(secret, { ...claims, expiresAt: 1_000 }));
  assert.equal(expired.ok, false);
  assert.equal(!expired.ok && expired.reason, 'expired');
});

const otherSecret = 'another-secret-0123456789abcdef-0123456789';

test('a signing key id is short, stable per secret, and neither the secret nor its link MAC', () => {
  const id = signingKeyId(secret);
  assert.match(id, /^[0-9a-f]{12}$/);
  assert.equal(signingKeyId(secret), id);
  assert.notEqual(signingKeyId(otherSecret), id);
  const [, signature] = signLink(secret, claims).split('.') as [string, string];
  assert.ok(!Buffer.from(signature, 'base64url').toString('hex').includes(id));
  assert.ok(!secret.includes(id));
});

test('a link signed with another secret is refused as such, naming both key ids', () => {
  const token = signLink(otherSecret, claims);
  assert.deepEqual(verifyLink(secret, token), {
    ok: false,
    reason: 'other_secret',
    signerKeyId: signingKeyId(otherSecret),
    keyId: signingKeyId(secret),
  });
});

test('the key id a link names is unverified: it only picks the refusal, never lets a link through', () => {
  const forged = signLink(otherSecret, claims);
  // This secret's own id with a signature that does not verify: forged, plainly.
  const ownId = rewriteLinkPayload(forged, (p) => (p.k = signingKeyId(secret)));
  assert.deepEqual(verifyLink(secret, ownId), { ok: false, reason: 'invalid' });
  // Any other id: the other refusal, still a refusal.
  const anyId = rewriteLinkPayload(signLink(secret, claims), (p) => {
    p.x = 'reject';
    p.k = '0123456789ab';
  });
  const check = verifyLink(secret, anyId);
  assert.equal(check.ok, false);
  assert.equal(!check.ok && check.reason, 'other_secret');
  // An id that is no key id at all is not read.
  const odd = rewriteLinkPayload(forged, (p) => (p.k = 'not an id'));
  assert.deepEqual(verifyLink(secret, odd), { ok: false, reason: 'invalid' });
});

test('a link signed before key ids (none in its payload) still verifies', () => {
  const payload = Buffer.from(
    JSON.stringify({
      v: 1,
      t: claims.trackingId,
      a: 'alice',
      x: 'approve',
      e: claims.expiresAt,
      n: 'nonce-0123456789',
      r: 2,
    }),
  ).toString('base64url');
  const sign = (key: string) =>
    createHmac('sha256', key).update(`countersign-link.v1.${payload}`).digest('base64url');
  const result = verifyLink(secret, `${payload}.${sign(secret)}`);
  assert.ok(result.ok);
  assert.deepEqual(result.claims, { ...claims, nonce: 'nonce-0123456789', revision: 2 });
  // With another secret it names no key id, so it is refused as it always was.
  assert.deepEqual(verifyLink(secret, `${payload}.${sign(otherSecret)}`), { ok: false, reason: 'invalid' });
});
