import { StringDecoder } from 'node:string_decoder';

/**
 * Reading a secret a person supplies (a password, a one-time code): at a terminal, with echo off,
 * so nothing typed is ever printed; from a pipe or a file, its first line, so scripts can pass it
 * (`printf %s "$PW" | countersign respond ID`). Never from the command line, which `ps` and the
 * shell's history keep. Nothing here prints, logs or puts the value in an error.
 */

/** The longest secret the API takes (protocol's SecretText), in UTF-16 code units as it counts. */
export const MAX_SECRET_LENGTH = 8_192;

/** How a secret read ended: the value, or why there is none. */
export type SecretAnswer =
  | { ok: true; secret: string }
  | {
      ok: false;
      /**
       * `cancelled`: Ctrl-C, or Ctrl-D at an empty prompt. `closed`: the input ended with nothing
       * on it. `aborted`: the caller's signal (the approval changed meanwhile).
       */
      why: 'cancelled' | 'closed' | 'aborted';
    };

export interface SecretPrompt {
  input: NodeJS.ReadableStream;
  /** Where the prompt goes, at a terminal: stderr for `respond`, so stdout stays its answer. */
  output: NodeJS.WritableStream;
  /** Printed before reading at a terminal (never from a pipe), after echo is off. */
  prompt: string;
  signal?: AbortSignal;
  /**
   * Sets the input's other `data` listeners aside while reading (watch's readline), so the keys
   * typed reach this reader and nothing else; they are put back after.
   */
  exclusive?: boolean;
}

type Terminal = NodeJS.ReadStream & { setRawMode(mode: boolean): unknown };

/** Whether `input` is a terminal whose echo can be turned off. */
export function isTerminal(input: NodeJS.ReadableStream): input is Terminal {
  const stream = input as Partial<Terminal>;
  return stream.isTTY === true && typeof stream.setRawMode === 'function';
}

/** Reads one secret: hidden at a terminal, else the first line of the input. */
export function readSecret(options: SecretPrompt): Promise<SecretAnswer> {
  return isTerminal(options.input) ? readHidden(options.input, options) : readFirstLine(options);
}

/**
 * The keys a person types at a hidden prompt, as the secret they mean: Backspace takes back the
 * last character, Ctrl-U all of them, Enter ends it, Ctrl-C (or Ctrl-D with nothing typed)
 * cancels; escape sequences (arrow keys, bracketed paste markers) and other control keys are
 * dropped rather than taken into the secret.
 */
export class HiddenLine {
  private chars: string[] = [];
  private escape: 'none' | 'start' | 'sequence' = 'none';

  /** Takes typed text; says when the line ended, and how. */
  feed(text: string): 'enter' | 'cancel' | undefined {
    for (const char of text) {
      const code = char.codePointAt(0)!;
      if (this.escape === 'start') {
        this.escape = char === '[' || char === 'O' ? 'sequence' : 'none';
        // Alt and a key drops the key; Escape then Enter (or Ctrl-C) is still Enter.
        if (this.escape === 'sequence' || code >= 0x20) continue;
      }
      if (this.escape === 'sequence') {
        if (code >= 0x40 && code <= 0x7e) this.escape = 'none';
        continue;
      }
      if (char === '\r' || char === '\n') return 'enter';
      if (char === '\u0003') return 'cancel';
      if (char === '\u0004') {
        if (this.chars.length === 0) return 'cancel';
        continue;
      }
      if (char === '\u007f' || char === '\b') this.chars.pop();
      else if (char === '\u0015') this.chars = [];
      else if (char === '\u001b') this.escape = 'start';
      else if (code >= 0x20 && !(code >= 0x80 && code < 0xa0)) this.chars.push(char);
    }
    return undefined;
  }

  get value(): string {
    return this.chars.join('');
  }
}

/**
 * At a terminal: raw mode first (no echo, no line editing by the terminal), then the prompt, so
 * nothing typed once the prompt shows is ever echoed. The terminal's mode is restored however the
 * read ends.
 */
function readHidden(tty: Terminal, options: SecretPrompt): Promise<SecretAnswer> {
  const { output, signal } = options;
  if (signal?.aborted) return Promise.resolve({ ok: false, why: 'aborted' });
  return new Promise((resolve, reject) => {
    const line = new HiddenLine();
    const decoder = new StringDecoder('utf8');
    const wasRaw = tty.isRaw;
    const flowing = tty.readableFlowing;
    const setAside = options.exclusive ? tty.listeners('data') : [];
    for (const listener of setAside) tty.removeListener('data', listener as (chunk: unknown) => void);

    const finish = (answer: SecretAnswer | Error) => {
      tty.removeListener('data', onData);
      tty.removeListener('end', onEnd);
      tty.removeListener('error', onError);
      signal?.removeEventListener('abort', onAbort);
      try {
        tty.setRawMode(wasRaw);
      } finally {
        if (flowing !== true) tty.pause();
        for (const listener of setAside) tty.on('data', listener as (chunk: unknown) => void);
        // Enter was not echoed either: end the prompt's line.
        output.write('\n');
      }
      if (answer instanceof Error) reject(answer);
      else resolve(answer);
    };
    const onData = (chunk: Buffer | string) => {
      const ended = line.feed(typeof chunk === 'string' ? chunk : decoder.write(chunk));
      if (ended === 'enter') finish({ ok: true, secret: line.value });
      else if (ended === 'cancel') finish({ ok: false, why: 'cancelled' });
    };
    const onEnd = () => finish({ ok: false, why: line.value ? 'cancelled' : 'closed' });
    const onError = (error: Error) => finish(error);
    const onAbort = () => finish({ ok: false, why: 'aborted' });

    tty.setRawMode(true);
    output.write(options.prompt);
    tty.on('data', onData);
    tty.once('end', onEnd);
    tty.once('error', onError);
    signal?.addEventListener('abort', onAbort, { once: true });
    tty.resume();
  });
}

/** The most a first line may hold, in bytes: the longest secret, each character at 4 bytes, and \r\n. */
const MAX_LINE_BYTES = MAX_SECRET_LENGTH * 4 + 2;

/**
 * From a pipe or a file: the first line as it is, without its line ending (\n or \r\n); all of
 * the input when it has no line break (`printf %s "$PW"`). Nothing after the first line is read.
 */
function readFirstLine({ input, signal }: SecretPrompt): Promise<SecretAnswer> {
  if (signal?.aborted) return Promise.resolve({ ok: false, why: 'aborted' });
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    let seen = false;
    const finish = (answer: SecretAnswer | Error) => {
      input.removeListener('data', onData);
      input.removeListener('end', onEnd);
      input.removeListener('error', onError);
      signal?.removeEventListener('abort', onAbort);
      input.pause();
      if (answer instanceof Error) reject(answer);
      else resolve(answer);
    };
    const lineOf = (bytes: Buffer) => {
      const text = bytes.toString('utf8');
      return text.endsWith('\r') ? text.slice(0, -1) : text;
    };
    const onData = (chunk: Buffer | string) => {
      seen = true;
      buffered = Buffer.concat([buffered, typeof chunk === 'string' ? Buffer.from(chunk) : chunk]);
      const end = buffered.indexOf(0x0a);
      if (end >= 0) finish({ ok: true, secret: lineOf(buffered.subarray(0, end)) });
      // Too long to be a secret: taken as it is, for the length check to refuse.
      else if (buffered.length > MAX_LINE_BYTES) finish({ ok: true, secret: lineOf(buffered) });
    };
    const onEnd = () => finish(seen ? { ok: true, secret: lineOf(buffered) } : { ok: false, why: 'closed' });
    const onError = (error: Error) => finish(error);
    const onAbort = () => finish({ ok: false, why: 'aborted' });
    input.on('data', onData);
    input.once('end', onEnd);
    input.once('error', onError);
    signal?.addEventListener('abort', onAbort, { once: true });
    input.resume();
  });
}

/** Why a secret cannot be sent, or undefined when it can; never quotes it. */
export function secretProblem(secret: string): string | undefined {
  if (secret.length === 0) return 'the secret is empty';
  if (secret.length > MAX_SECRET_LENGTH)
    return `the secret is longer than ${MAX_SECRET_LENGTH} characters, the most the API takes`;
  return undefined;
}

/**
 * An error with every occurrence of the secret taken out of its message, stack and details, in
 * case something on the way (a server's answer) ever quoted it.
 */
export function withoutSecret<E>(error: E, secret: string): E {
  if (!secret || !(error instanceof Error)) return error;
  const scrub = (text: string) => text.split(secret).join('[secret withheld]');
  error.message = scrub(error.message);
  if (error.stack) error.stack = scrub(error.stack);
  const details = (error as { details?: unknown }).details;
  if (Array.isArray(details)) {
    for (let i = 0; i < details.length; i++)
      if (typeof details[i] === 'string') details[i] = scrub(details[i] as string);
  }
  return error;
}
