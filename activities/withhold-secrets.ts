import { ApplicationFailure } from '@temporalio/activity';
import type { JsonValue } from '../protocol/index.js';

/** What stands in for a secret a tool let slip into its output or an error. */
export const WITHHELD = '[secret withheld]';

/**
 * Secrets shorter than this are not searched for: a one-character "secret" would blank every text.
 * A tool that takes such short secrets must keep them out of what it returns.
 */
const SHORTEST_SEARCHED = 4;

/** How deep a chain of causes is followed; a cause below it is dropped, never passed on as is. */
const DEEPEST_CAUSE = 8;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A hex number as a pattern of its digits in either case: `%2f` and `%2F`, `\u00e9` and `\u00E9`. */
const hexDigits = (value: number, width: number) =>
  [...value.toString(16).padStart(width, '0')]
    .map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit))
    .join('');

const JSON_SHORT: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '/': '\\/',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

/**
 * The value as text, each character as it is or as a JSON string writes it (`\"`, `\n`, `\u00e9`)
 * or as a URL writes it (`%C3%A9`, a space as `+`), in either case of hex: one pattern for the
 * raw value, its JSON string escapes, encodeURIComponent, form-encoding and the like, even mixed.
 */
function textPattern(value: string): string {
  return [...value]
    .map((char) => {
      const forms = [escapeRegExp(char)];
      const short = JSON_SHORT[char];
      if (short) forms.push(escapeRegExp(short));
      // A character beyond U+FFFF is two \u escapes; one of several UTF-8 bytes is several %XX.
      const units = Array.from({ length: char.length }, (_, i) => char.charCodeAt(i));
      forms.push(units.map((unit) => `\\\\u${hexDigits(unit, 4)}`).join(''));
      forms.push([...Buffer.from(char, 'utf8')].map((byte) => `%${hexDigits(byte, 2)}`).join(''));
      if (char === ' ') forms.push('\\+');
      return `(?:${forms.join('|')})`;
    })
    .join('');
}

/**
 * The base64 of the value's bytes, standard and URL-safe, padded and not; then the characters
 * that encode the value alone wherever it sits in a longer encoded text (`user:password` in a
 * Basic authorization header), at each of the three byte offsets base64 can start it at.
 */
function base64Forms(bytes: Buffer): string[] {
  const whole = bytes.toString('base64');
  const forms = [whole, whole.replace(/=+$/, '')];
  for (let offset = 0; offset < 3; offset++) {
    const shifted = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    // A character encodes six bits: keep those whose bits all come from the value.
    forms.push(shifted.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6)));
  }
  const urlSafe = (form: string) => form.replace(/\+/g, '-').replace(/\//g, '_');
  return [...forms, ...forms.map(urlSafe)];
}

/**
 * Every form of one secret searched for, longest first, as patterns: its text (raw, JSON-escaped,
 * percent-encoded), the hex and base64 of its UTF-8 bytes, and the number it spells, if it
 * spells one (`"0042"` echoed as the number 42 is `42`).
 */
function patternsOf(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const literal = [...base64Forms(bytes)];
  const number = Number(value);
  if (value.trim() !== '' && Number.isFinite(number)) literal.push(String(number));
  const hex = [...bytes].map((byte) => hexDigits(byte, 2)).join('');
  return [
    ...new Set(
      literal.filter((form) => form.length >= SHORTEST_SEARCHED).sort((a, b) => b.length - a.length),
    ),
  ]
    .map(escapeRegExp)
    .concat(hex, textPattern(value));
}

/**
 * Replaces every secret in a text with {@link WITHHELD}: a tool's output and errors go to the
 * history, the model and the logs, where a secret must never be, even when the tool echoes one.
 * Caught: the value as it is, JSON-escaped, percent- or form-encoded, in hex or base64 (standard
 * or URL-safe, padded or not, alone or inside a longer encoded text), and as the number it spells.
 * Not caught: anything the tool computes from it (a hash, a cipher, a slice, another encoding).
 */
export function withholder(values: string[]): (text: string) => string {
  const searched = [...new Set(values)].filter((value) => value.length >= SHORTEST_SEARCHED);
  if (searched.length === 0) return (text) => text;
  // Longer secrets first, so one that contains another is withheld whole.
  const pattern = new RegExp(
    searched
      .sort((a, b) => b.length - a.length)
      .flatMap(patternsOf)
      .join('|'),
    'g',
  );
  return (text) => text.replace(pattern, WITHHELD);
}

/**
 * A tool's output with its secrets withheld, in keys and values alike; a number that spells a
 * secret (a one-time code returned as a JSON number) becomes the withheld text.
 */
export function withholdInOutput(output: JsonValue, withhold: (text: string) => string): JsonValue {
  if (typeof output === 'string') return withhold(output);
  if (typeof output === 'number') return withhold(String(output)) === String(output) ? output : WITHHELD;
  if (Array.isArray(output)) return output.map((item) => withholdInOutput(item, withhold));
  if (output === null || typeof output !== 'object') return output;
  return Object.fromEntries(
    Object.entries(output).map(([key, value]) => [withhold(key), withholdInOutput(value, withhold)]),
  );
}

/** A thrown value that is not an Error, as text (the SDK sends such values as their JSON). */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * The error a tool threw, rebuilt without its secrets, and nothing else of it kept: this is what
 * the failure converter sends to the server (message, stack, causes) and what the worker's log
 * prints (all of those, and the error's own properties). Withheld: name, message, stack, each cause
 * down the chain, and the error's other own string and number properties (`code`, `detail`...).
 * An ApplicationFailure keeps its type and retry rules; its details (any value) are dropped.
 */
export function withholdInError(err: unknown, withhold: (text: string) => string): Error {
  return rebuilt(err, withhold, 0);
}

function rebuilt(err: unknown, withhold: (text: string) => string, depth: number): Error {
  if (!(err instanceof Error)) return new Error(withhold(textOf(err)));
  const message = withhold(String(err.message));
  const cause =
    err.cause === undefined || depth >= DEEPEST_CAUSE ? undefined : rebuilt(err.cause, withhold, depth + 1);
  const error =
    err instanceof ApplicationFailure
      ? ApplicationFailure.create({
          message,
          type: err.type ? withhold(err.type) : undefined,
          nonRetryable: err.nonRetryable === true,
          nextRetryDelay: err.nextRetryDelay ?? undefined,
          category: err.category ?? undefined,
          cause,
        })
      : new Error(message, cause ? { cause } : undefined);
  if (!(error instanceof ApplicationFailure)) error.name = withhold(String(err.name));
  error.stack = withhold(String(err.stack ?? `${err.name}: ${err.message}`));
  for (const key of Object.getOwnPropertyNames(err)) {
    if (key in error) continue;
    const value = (err as unknown as Record<string, unknown>)[key];
    if (typeof value === 'string' || typeof value === 'number') {
      Object.defineProperty(error, key, {
        value: typeof value === 'string' ? withhold(value) : withholdInOutput(value, withhold),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return error;
}
