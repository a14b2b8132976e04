import type { Random } from './random.js';

/**
 * Raw, already URL-encoded path segments: traversal, encodings, lone surrogates (as their UTF-8
 * bytes, which encodeURIComponent refuses to produce), control characters, odd unicode, huge ones.
 */
/** Idempotency keys: a few reused ones, and ones the API must refuse (too long, not printable). */
export const IDEMPOTENCY_KEYS = ['reused-1', 'reused-1', 'reused-2', '', ' ', 'x'.repeat(201), 'clé', 'k\tk'];

export const SEGMENTS = [
  '',
  '.',
  '..',
  '..%2F..%2Fetc%2Fpasswd',
  '%00',
  '%',
  '%%41',
  '%ED%A0%80',
  '%F0%9F%98%80.1',
  encodeURIComponent('\u202eevil\u200b'),
  encodeURIComponent('<script>alert(1)</script>'),
  'run-x.0',
  'run-x.1',
  'run-x.99999999999',
  '.1',
  'a'.repeat(5_000),
  encodeURIComponent('Ω≈ç√∫˜µ≤≥÷'),
  encodeURIComponent('𝕿𝖍𝖊 𝖖𝖚𝖎𝖈𝖐'),
  '__proto__',
  'constructor',
  '-1',
  '1e308',
];

/** Query strings: unknown values, repeated keys, prototype keys, numbers out of range. */
export const QUERIES = [
  '',
  '?status=%00',
  '?status=pending&status=all',
  '?status[]=x',
  '?limit=-1',
  '?limit=1e99',
  '?limit=NaN',
  '?__proto__[admin]=1',
  `?agent=${'x'.repeat(3_000)}`,
  '?tool=%ED%A0%80',
  '?role=%F0%9F%98%80',
  '?after=-5',
];

const ODD_STRINGS = [
  '\u0000',
  '\ud83d',
  '\u202e\u200b\ufeff',
  '𝕿𝖍𝖊',
  '<img src=x onerror=alert(1)>',
  '${7*7}{{7*7}}',
  'Ω'.repeat(10_000),
  '',
  ' ',
];

/**
 * Valid JSON nested far deeper than any body needs (arrays or objects, a random depth past the
 * limit), within the size limit, alone or where each route takes any JSON: each must be refused at
 * the edge, before a validator's recursion can overflow.
 */
export function nestedBodies(random: Random): string[] {
  const array = random.next() < 0.5;
  const depth = random.int(65, array ? 100_000 : 40_000);
  const deep = array
    ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  return [
    deep,
    `{"type":"edit","args":{"a":${deep}}}`,
    `{"type":"respond","result":${deep}}`,
    `{"type":"edit","plan":[{"tool":"apply_change","args":{"ref":${deep}}}]}`,
    `{"agent":"faults","input":"ref=x amount=1","requester":${deep}}`,
  ];
}

/** Request bodies as raw text: malformed JSON, wrong shapes, prototype pollution, odd unicode, deep nesting. */
export function randomBody(random: Random): { text: string; malformed: boolean } {
  const odd = () => random.pick(ODD_STRINGS);
  const shapes: (() => { text: string; malformed: boolean })[] = [
    () => ({
      text: random.pick(['{', '{"a":', '[', '{"type":"approve"', '\u0000', 'nul', "{'a':1}", '{"a":1}}']),
      malformed: true,
    }),
    () => ({ text: '['.repeat(random.int(1_000, 20_000)), malformed: true }),
    () => ({ text: random.pick(nestedBodies(random)), malformed: true }),
    () => ({ text: `{"x":"${'y'.repeat(random.int(300_000, 5_000_000))}"}`, malformed: true }),
    () => ({ text: random.pick(['null', '"str"', '1e999999', '[]', 'true', '{}']), malformed: false }),
    () => ({
      text: JSON.stringify({
        type: random.pick(['approve', 'edit', 'reject', 'respond', 'APPROVE', 5, null]),
        extra: odd(),
      }),
      malformed: false,
    }),
    () => ({
      text: JSON.stringify({
        type: 'edit',
        args: random.pick([null, [], 'x', { amount: odd() }, { __proto__: { admin: true } }]),
      }),
      malformed: false,
    }),
    () => ({
      text: JSON.stringify({ type: 'reject', message: odd().repeat(random.int(1, 1_000)) }),
      malformed: false,
    }),
    () => ({
      text: JSON.stringify({
        agent: random.pick([odd(), {}, [], 7, 'faults']),
        input: random.pick([odd(), [], 'ref=x amount=1']),
      }),
      malformed: false,
    }),
    () => ({ text: '{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"x":1}}}', malformed: false }),
  ];
  return random.pick(shapes)();
}

export const CONTENT_TYPES = [
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16',
  '',
];
