import { createSecretKey, type KeyObject } from 'node:crypto';

/**
 * AES-256 keys by id, as the payload codec and the secret sealer take them: 32 random bytes each
 * (as bytes, or base64), and the id of the one new data is encrypted with.
 *
 * @example
 * ```ts
 * import type { KeySet } from 'countersign';
 *
 * // Rotation: k2 encrypts from now on; k1 stays to read what it encrypted.
 * const keys: KeySet = { keys: { k2: process.env.KEY_2!, k1: process.env.KEY_1! }, encryptWith: 'k2' };
 * ```
 */
export interface KeySet {
  /** Key id to key: 32 bytes, or their base64. Ids are letters, digits, `.`, `_`, `-` (up to 64). */
  keys: Record<string, Uint8Array | string>;
  /** The id of the key new data is encrypted with; one of `keys`. */
  encryptWith: string;
}

/** A checked {@link KeySet}: keys as KeyObjects, which print as their type, never their bytes. */
export interface Keyring {
  current: KeyObject;
  currentId: string;
  get(id: string): KeyObject | undefined;
  /** The ids held, for errors that name them. */
  held: string;
}

const KEY_BYTES = 32;
export const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Checks a key set; `owner` prefixes every error, which names key ids and never a key's value. */
export function keyring(options: KeySet, owner: string): Keyring {
  const keys = new Map<string, KeyObject>();
  for (const [id, value] of Object.entries(options.keys ?? {})) keys.set(id, keyObject(owner, id, value));
  if (keys.size === 0) throw new TypeError(`${owner}: give at least one key`);
  const current = keys.get(options.encryptWith);
  if (!current) {
    throw new TypeError(
      `${owner}: encryptWith ${JSON.stringify(options.encryptWith)} is not one of the keys (${[...keys.keys()].join(', ')})`,
    );
  }
  return {
    current,
    currentId: options.encryptWith,
    get: (id) => keys.get(id),
    held: [...keys.keys()].join(', '),
  };
}

function keyObject(owner: string, id: string, value: Uint8Array | string): KeyObject {
  if (!KEY_ID.test(id)) {
    throw new TypeError(
      `${owner}: key id ${JSON.stringify(id)} must be 1 to 64 letters, digits, '.', '_' or '-'`,
    );
  }
  let bytes: Buffer;
  if (typeof value === 'string') {
    if (!BASE64.test(value)) throw new TypeError(`${owner}: key ${id} is not base64`);
    bytes = Buffer.from(value, 'base64');
  } else if (value instanceof Uint8Array) {
    bytes = Buffer.from(value);
  } else {
    throw new TypeError(`${owner}: key ${id} must be bytes or a base64 string`);
  }
  if (bytes.length !== KEY_BYTES) {
    throw new TypeError(`${owner}: key ${id} is ${bytes.length} bytes; AES-256 needs ${KEY_BYTES}`);
  }
  const key = createSecretKey(bytes);
  bytes.fill(0);
  return key;
}
