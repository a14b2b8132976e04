// The operator's warning about a token signed with another secret: anyone can send such tokens, so
// each kind is logged at most once a minute per key id of this process, the rest counted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { warnSigningMismatch } from '../../api/signing-mismatch.js';

test('a flood of tokens from another secret is one warning a minute, then one that counts the rest', (t) => {
  const warned = t.mock.method(console, 'warn', () => undefined);
  const start = 1_000_000;
  for (let i = 0; i < 50; i++)
    warnSigningMismatch('an email link', `${i}`.padStart(12, 'a'), 'bbbbbbbbbbbb', start + i);
  assert.equal(warned.mock.callCount(), 1);
  // Another kind of token, or another key id of this process, is its own warning.
  warnSigningMismatch('a pageToken', 'aaaaaaaaaaaa', 'bbbbbbbbbbbb', start + 100);
  warnSigningMismatch('an email link', 'aaaaaaaaaaaa', 'cccccccccccc', start + 100);
  assert.equal(warned.mock.callCount(), 3);
  warnSigningMismatch('an email link', 'aaaaaaaaaaaa', 'bbbbbbbbbbbb', start + 60_000);
  assert.equal(warned.mock.callCount(), 4);
  assert.match(String(warned.mock.calls[3]!.arguments[0]), /and 49 more such refusals/);
});
