import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signLink, verifyLink } from '../../notify/links.js';

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
  assert.deepEqual(verifyLink('another-secret-0123456789abcdef-0123456789', token), {
    ok: false,
    reason: 'invalid',
  });
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
