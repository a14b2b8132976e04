import { aesGcmCodec, type AesGcmCodecOptions } from './aes-gcm-codec.js';

/**
 * The variable {@link loadPayloadKeys} reads by default: `keyId:base64` entries separated by
 * commas, the first the one new payloads are encrypted with.
 *
 * @example
 * ```ts
 * import { PAYLOAD_KEYS_VARIABLE } from 'countersign';
 *
 * if (!process.env[PAYLOAD_KEYS_VARIABLE]) console.warn('payloads are stored unencrypted');
 * ```
 */
export const PAYLOAD_KEYS_VARIABLE = 'COUNTERSIGN_PAYLOAD_KEYS';

/**
 * The payload keys an environment variable holds, as {@link aesGcmCodec} takes them, or undefined
 * when the variable is unset or empty (encryption off). The value is `keyId:base64` entries
 * separated by commas, newest first: `k2:...,k1:...` encrypts with `k2` and still reads what `k1`
 * encrypted. Every key is checked (32 bytes); an error names the variable and the entry, never a
 * key's value.
 *
 * @example
 * ```ts
 * import { aesGcmCodec, loadPayloadKeys } from 'countersign';
 * import { createWorker } from 'countersign/worker';
 *
 * // COUNTERSIGN_PAYLOAD_KEYS="k2:3q2+7w...=,k1:q83vEj...="
 * const keys = loadPayloadKeys(process.env);
 * const payloadCodec = keys && aesGcmCodec(keys);
 * const worker = await createWorker({ connection, agents, model, payloadCodec });
 * ```
 */
export function loadPayloadKeys(
  env: NodeJS.ProcessEnv,
  variable: string = PAYLOAD_KEYS_VARIABLE,
): AesGcmCodecOptions | undefined {
  const value = env[variable]?.trim();
  if (!value) return undefined;
  const keys: Record<string, string> = {};
  const ids: string[] = [];
  value.split(',').forEach((entry, index) => {
    const separator = entry.indexOf(':');
    const id = separator > 0 ? entry.slice(0, separator).trim() : '';
    if (!id) throw new Error(`${variable}: entry ${index + 1} is not keyId:base64`);
    if (Object.hasOwn(keys, id)) throw new Error(`${variable}: key id ${id} is given twice`);
    keys[id] = entry.slice(separator + 1).trim();
    ids.push(id);
  });
  const options: AesGcmCodecOptions = { keys, encryptWith: ids[0]! };
  try {
    aesGcmCodec(options);
  } catch (error) {
    throw new Error(`${variable}: ${(error as Error).message.replace(/^aesGcmCodec: /, '')}`);
  }
  return options;
}
