/**
 * Characters that act on how text is shown rather than being shown: controls (ESC starts the
 * terminal escape sequences that move the cursor, clear lines, recolour or retitle; CR overwrites
 * a line), C1 controls (a terminal may read U+009B as ESC [), bidirectional overrides, embeddings
 * and isolates (U+202E reorders what follows), zero-width and other invisible format characters
 * (tag characters spell hidden text), line and paragraph separators, and lone surrogates.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

const SHORT: Record<string, string> = { '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Text from a run (its input, a model's message, arguments, descriptions, messages) made safe to
 * show where a person must read exactly what is there: every character of `INVISIBLE` is written
 * as its JSON escape (`\u001b`, `\u202e`, `\n`), so it is seen, never obeyed. With `keepLines`, line
 * breaks and tabs are kept, for blocks of text. The escapes are JSON's own, so JSON text passed
 * through still parses to the same values.
 *
 * @example
 * ```ts
 * import { visibleText } from './visible-text.js';
 *
 * visibleText('Refund \u001b[2Jall'); // 'Refund \\u001b[2Jall': the escape is shown, not obeyed
 * console.log(visibleText(approval.description));
 * ```
 */
export function visibleText(text: string, { keepLines = false }: { keepLines?: boolean } = {}): string {
  return text.replace(INVISIBLE, (char) => {
    if (keepLines && (char === '\n' || char === '\t')) return char;
    return (
      SHORT[char] ??
      Array.from(
        { length: char.length },
        (_, i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`,
      ).join('')
    );
  });
}
