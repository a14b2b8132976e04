/**
 * JSON Pointers (RFC 6901), the one way every channel names a field: `/args/amount`,
 * `/plan/0/args/sql`. Pure, so the workflow bundle, the API and the UI share it.
 */

/**
 * One pointer segment: `~` and `/` in a key are escaped as `~0` and `~1`.
 *
 * @example
 * ```ts
 * import { escapePointer } from './json-pointer.js';
 *
 * escapePointer('a/b~c'); // 'a~1b~0c'
 * ```
 */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * The key a pointer segment names: `escapePointer` undone.
 *
 * @example
 * ```ts
 * import { unescapePointer } from './json-pointer.js';
 *
 * '/args/a~1b'.split('/').slice(1).map(unescapePointer); // ['args', 'a/b']
 * ```
 */
export function unescapePointer(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * The pointer to a path of keys and indexes; the empty path is the whole document, `''`.
 *
 * @example
 * ```ts
 * import { toPointer } from './json-pointer.js';
 *
 * toPointer(['plan', 0, 'args', 'sql']); // '/plan/0/args/sql'
 * ```
 */
export function toPointer(path: readonly PropertyKey[]): string {
  return path.map((segment) => `/${escapePointer(String(segment))}`).join('');
}
