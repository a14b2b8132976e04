import type { ArgChange, JsonValue } from '../protocol/index.js';
import { escapePointer, unescapePointer } from '../protocol/json-pointer.js';

/** The changes between two JSON values, each at a JSON pointer (RFC 6901). */
export function diffJson(
  before: JsonValue | undefined,
  after: JsonValue | undefined,
  path = '',
): ArgChange[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => diffJson(before[key], after[key], `${path}/${escapePointer(key)}`));
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    return before.flatMap((item, i) => diffJson(item, after[i], `${path}/${i}`));
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  const change: ArgChange = { path };
  if (before !== undefined) change.before = before;
  if (after !== undefined) change.after = after;
  return [change];
}

/** The top-level argument a pointer starts in. */
export function topLevelField(pointer: string): string {
  return unescapePointer(pointer.split('/')[1] ?? '');
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
