import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { keyring, type KeySet } from '../codec/keyring.js';
import { loadPayloadKeys } from '../codec/env-keys.js';

/**
 * What a sealed secret is bound to: the approval it answered and the secret's name. A sealed value
 * opens only for that binding, so it cannot be replayed into another run, call or secret.
 *
 * @example
 * ```ts
 * import type { SecretBinding } from 'countersign';
 *
 * const binding: SecretBinding = { trackingId: approval.trackingId, name: approval.secret!.name };
 * ```
 */
export interface SecretBinding {
  trackingId: string;
  name: string;
}

/**
 * Seals the secrets people supply (in the API) and opens them (in the activity that runs the tool).
 * Both sides hold the same secret keys; the workflow holds none, and sees only the sealed form.
 *
 * @example
 * ```ts
 * import { loadSecretKeys, secretSealer } from 'countersign';
 *
 * const sealer = secretSealer(loadSecretKeys(process.env)!);
 * const sealed = sealer.seal('hunter2', { trackingId: approval.trackingId, name: 'db_password' });
 * ```
 */
export interface SecretSealer {
  seal(value: string, binding: SecretBinding): string;
  /** The value, or an error that names the key id and the binding, never the value. */
  open(sealed: string, binding: SecretBinding): string;
}

/**
 * The variable {@link loadSecretKeys} reads: `keyId:base64` entries separated by commas, newest first.
 *
 * @example
 * ```ts
 * import { SECRET_KEYS_VARIABLE } from 'countersign';
 *
 * if (!process.env[SECRET_KEYS_VARIABLE]) console.warn('tools that need a secret cannot be given one');
 * ```
 */
export const SECRET_KEYS_VARIABLE = 'COUNTERSIGN_SECRET_KEYS';

/**
 * The secret keys an environment variable holds (`s2:<base64>,s1:<base64>`, the first sealing), or
 * undefined when it is unset. Keep them apart from the payload keys: whoever may decode a history
 * through the codec endpoint still cannot open a secret.
 *
 * @example
 * ```ts
 * import { loadSecretKeys } from 'countersign';
 *
 * // COUNTERSIGN_SECRET_KEYS="s1:$(node -e "console.log(require('crypto').randomBytes(32).toString('base64'))")"
 * const secretKeys = loadSecretKeys(process.env);
 * ```
 */
export function loadSecretKeys(env: NodeJS.ProcessEnv): KeySet | undefined {
  return loadPayloadKeys(env, SECRET_KEYS_VARIABLE);
}

const VERSION = 'cs1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM under the current key, a fresh IV each time; the key id and the binding are
 * authenticated with the ciphertext. Written `cs1:<key id>:<base64url(iv | ciphertext | tag)>`.
 *
 * @example
 * ```ts
 * import { secretSealer } from 'countersign';
 *
 * const sealer = secretSealer({ keys: { s1: process.env.SECRET_KEY_1! }, encryptWith: 's1' });
 * ```
 */
export function secretSealer(keys: KeySet): SecretSealer {
  const ring = keyring(keys, 'secretSealer');
  const aad = (keyId: string, { trackingId, name }: SecretBinding) =>
    Buffer.from(JSON.stringify([VERSION, keyId, trackingId, name]));
  return {
    seal(value, binding) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', ring.current, iv);
      cipher.setAAD(aad(ring.currentId, binding));
      const sealed = Buffer.concat([iv, cipher.update(value, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${VERSION}:${ring.currentId}:${sealed.toString('base64url')}`;
    },
    open(sealed, binding) {
      const [version, keyId = '', data = ''] = sealed.split(':');
      const where = `secret ${binding.name} of ${binding.trackingId}`;
      if (version !== VERSION) throw new Error(`${where} is not sealed by this version of Countersign`);
      const key = ring.get(keyId);
      if (!key) {
        throw new Error(
          `${where} is sealed with key "${keyId}", which this worker does not hold (it holds ${ring.held}): ` +
            'every worker and API of a task queue must share the secret keys (COUNTERSIGN_SECRET_KEYS, `secretKeys`)',
        );
      }
      const bytes = Buffer.from(data, 'base64url');
      if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error(`${where} is too short to be sealed`);
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(aad(keyId, binding));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      try {
        return Buffer.concat([
          decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        throw new Error(`${where} does not open: sealed for another approval or secret, or altered`);
      }
    },
  };
}
