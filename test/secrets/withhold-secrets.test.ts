// Issue 39, item 7: withholding a secret covers the encodings a tool is likely to echo it in, and
// every string of an error, as the server stores it and the worker's log prints it.
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { test } from 'node:test';
import {
  ApplicationFailure,
  DefaultFailureConverter,
  defaultPayloadConverter,
  ensureApplicationFailure,
} from '@temporalio/common';
import {
  WITHHELD,
  withholder,
  withholdInError,
  withholdInOutput,
} from '../../activities/withhold-secrets.js';

/** Quotes, a backslash, a slash, a space, a plus, a percent and a non-ASCII letter: every escape differs. */
const value = 'Pa55 "wörd"/+&%\\ ~?ÿ';
const withhold = withholder([value]);
const bytes = Buffer.from(value, 'utf8');

/** Each form, placed inside some text, is withheld whole and nothing of it is left. */
function assertWithheld(forms: Record<string, string>): void {
  for (const [name, form] of Object.entries(forms)) {
    assert.notEqual(form, value, `${name} is a form of its own`);
    assert.equal(withhold(`before ${form} after`), `before ${WITHHELD} after`, name);
  }
}

test('a secret echoed as a number, in JSON or as text, is withheld', () => {
  const otp = withholder(['00482916']);
  assert.deepEqual(withholdInOutput({ code: 482916, rows: 3, otp: '00482916' }, otp), {
    code: WITHHELD,
    rows: 3,
    otp: WITHHELD,
  });
  assert.deepEqual(withholdInOutput([4829160, 1.5], withholder(['482916'])), [WITHHELD, 1.5]);
  assert.equal(otp('{"code":482916}'), `{"code":${WITHHELD}}`);
  // No form shorter than four characters is searched for: it would blank every text.
  assert.deepEqual(withholdInOutput([1, 'abc YWJj 616263'], withholder(['0001', 'abc'])), [
    1,
    'abc YWJj 616263',
  ]);
});

test('a secret percent-encoded is withheld: encodeURIComponent, form-encoding, either case of hex', () => {
  const component = encodeURIComponent(value);
  assertWithheld({
    encodeURIComponent: component,
    'form-encoded (URLSearchParams)': new URLSearchParams([['pw', value]]).toString().slice('pw='.length),
    'space as +': component.replace(/%20/g, '+'),
    'lower-case hex': component.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
    encodeURI: encodeURI(value),
  });
  assert.equal(
    withhold(`https://db.example/login?user=ops&pw=${encodeURIComponent(value)}&next=%2F`),
    `https://db.example/login?user=ops&pw=${WITHHELD}&next=%2F`,
  );
});

test('a secret JSON-escaped is withheld: quotes, backslashes and unicode escaped', () => {
  const escaped = JSON.stringify(value).slice(1, -1);
  assertWithheld({
    'JSON.stringify': escaped,
    'non-ASCII as \\u escapes': escaped.replace(
      /[^\x20-\x7e]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    ),
    'upper-case \\u escapes': escaped.replace(
      /[^\x20-\x7e]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`,
    ),
    'slash escaped': escaped.replace(/\//g, '\\/'),
  });
  // A character beyond U+FFFF: two \u escapes, four UTF-8 bytes.
  const emoji = withholder(['key-\u{1f600}-x']);
  assert.equal(emoji('"key-\\ud83d\\ude00-x"'), `"${WITHHELD}"`);
  assert.equal(emoji(encodeURIComponent('key-\u{1f600}-x')), WITHHELD);
  // A tool returning JSON as text, and the JSON of an object a tool put into a string.
  assert.equal(
    withholdInOutput(JSON.stringify({ user: 'ops', password: value }), withhold),
    `{"user":"ops","password":"${WITHHELD}"}`,
  );
});

test('a secret base64-encoded is withheld: standard and URL-safe, padded or not, inside a longer encoding', () => {
  const standard = bytes.toString('base64');
  assert.match(standard, /[+/]/, 'the value tells the two alphabets apart');
  assert.match(standard, /=$/, 'the value has padding to drop');
  assertWithheld({
    base64: standard,
    'base64, unpadded': standard.replace(/=+$/, ''),
    base64url: bytes.toString('base64url'),
    'base64url, padded': standard.replace(/\+/g, '-').replace(/\//g, '_'),
  });
  // `user:password` in a Basic authorization header: the value starts at each of base64's offsets.
  for (const user of ['ops', 'opsx', 'opsxy']) {
    const header = `Basic ${Buffer.from(`${user}:${value}`).toString('base64')}`;
    const shown = withhold(header);
    const [before, after] = shown.split(WITHHELD);
    assert.ok(after !== undefined, `${user}: nothing withheld in ${shown}`);
    // Left: the characters that encode the user name, and those a byte of the value shares with it.
    assert.ok(before!.length <= 'Basic '.length + Math.ceil(((user.length + 1) * 4) / 3) + 1, shown);
    assert.ok(after!.length <= 3, shown);
  }
});

test('a secret hex-encoded is withheld, in lower or upper case', () => {
  assertWithheld({
    'hex, lower case': bytes.toString('hex'),
    'hex, upper case': bytes.toString('hex').toUpperCase(),
  });
});

test('every string of an error is withheld: name, message, stack, causes, own properties', () => {
  const base64 = bytes.toString('base64');
  const hex = bytes.toString('hex');
  const deepest = Object.assign(new Error(`server said ${base64}`), { code: `E_${hex}`, attempt: 2 });
  const middle = new TypeError(`login refused for ${encodeURIComponent(value)}`, { cause: deepest });
  const named = Object.assign(new Error('refused', { cause: middle }), { name: `AuthError ${hex}` });
  const thrown = ApplicationFailure.create({
    message: `could not connect as ${JSON.stringify(value)}`,
    type: 'LoginFailed',
    nonRetryable: true,
    details: [{ password: value }],
    cause: Object.assign(new Error('wrapped', { cause: { sent: value } }), { name: 'WrapError' }),
  });
  for (const err of [named, thrown, { password: value }, `plain ${base64}`]) {
    const error = withholdInError(err, withhold);
    // What the worker's log prints of it (util.inspect, as the SDK's DefaultLogger does)...
    const logged = inspect(error, { depth: Infinity });
    // ...and what the server stores: the SDK's own failure converter.
    const stored = JSON.stringify(
      new DefaultFailureConverter().errorToFailure(ensureApplicationFailure(error), defaultPayloadConverter),
    );
    for (const [where, text] of Object.entries({ logged, stored })) {
      for (const leak of [
        value,
        base64,
        hex,
        encodeURIComponent(value),
        JSON.stringify(value).slice(1, -1),
      ]) {
        assert.equal(text.includes(leak), false, `${where}: ${text}`);
      }
    }
    assert.match(logged, /\[secret withheld\]/);
  }
  // What is kept: the chain, names, types, retry rules and properties, withheld where they held it.
  const error = withholdInError(named, withhold);
  assert.equal(error.name, `AuthError ${WITHHELD}`);
  assert.equal(error.message, 'refused');
  const middleOut = error.cause as Error;
  assert.equal(middleOut.name, 'TypeError');
  assert.equal(middleOut.message, `login refused for ${WITHHELD}`);
  assert.equal(middleOut.stack?.includes(`TypeError: login refused for ${WITHHELD}`), true);
  const deepestOut = middleOut.cause as Error & { code: string; attempt: number };
  assert.equal(deepestOut.message, `server said ${WITHHELD}`);
  assert.equal(deepestOut.code, `E_${WITHHELD}`);
  assert.equal(deepestOut.attempt, 2);
  const failure = withholdInError(thrown, withhold);
  assert.ok(failure instanceof ApplicationFailure);
  assert.equal(failure.type, 'LoginFailed');
  assert.equal(failure.nonRetryable, true);
  assert.equal(failure.details, undefined, 'details, any value, are dropped');
  assert.equal((failure.cause?.cause as Error).message, `{"sent":"${WITHHELD}"}`);
});

test('a cycle of causes ends: the chain is cut, never followed forever', () => {
  const a = new Error(`a ${value}`);
  const b = new Error('b', { cause: a });
  a.cause = b;
  let error: unknown = withholdInError(a, withhold);
  let depth = 0;
  for (; error instanceof Error; error = error.cause) {
    assert.equal(error.message.includes(value), false);
    depth++;
  }
  assert.ok(depth > 2 && depth < 20, String(depth));
});
