/**
 * JSON Pointers (RFC 6901), the one way every channel names a field: `/args/amount`,
 * `/plan/0/args/sql`. Pure, so the workflow bundle, the API and the UI share it.
 */

/** One pointer segment: `~` and `/` in a key are escaped as `~0` and `~1`. */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function unescapePointer(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The pointer to a path of keys and indexes; the empty path is the whole document, `''`. */
export function toPointer(path: readonly PropertyKey[]): string {
  return path.map((segment) => `/${escapePointer(String(segment))}`).join('');
}
