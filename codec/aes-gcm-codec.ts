import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { keyring, type KeySet } from './keyring.js';

/**
 * The `encoding` metadata of a payload {@link aesGcmCodec} encrypted: the marker its `decode` looks
 * for (a payload without it passes through, as one written before encryption was turned on).
 *
 * @example
 * ```ts
 * import { ENCRYPTED_ENCODING } from 'countersign';
 *
 * const encrypted = (p: { metadata?: Record<string, Uint8Array> | null }) =>
 *   new TextDecoder().decode(p.metadata?.encoding) === ENCRYPTED_ENCODING;
 * ```
 */
export const ENCRYPTED_ENCODING = 'binary/encrypted';

/**
 * The metadata key naming the key a payload was encrypted with, so keys can rotate: a codec that
 * holds the old key still reads what it encrypted.
 *
 * @example
 * ```ts
 * import { ENCRYPTION_KEY_ID } from 'countersign';
 *
 * const keyIdOf = (p: { metadata?: Record<string, Uint8Array> | null }) =>
 *   new TextDecoder().decode(p.metadata?.[ENCRYPTION_KEY_ID]); // 'k2'
 * ```
 */
export const ENCRYPTION_KEY_ID = 'encryption-key-id';

/**
 * The keys of {@link aesGcmCodec}: a {@link KeySet}.
 *
 * @example
 * ```ts
 * import type { AesGcmCodecOptions } from 'countersign';
 *
 * // Rotation: k2 encrypts from now on; k1 stays to read what it encrypted.
 * const options: AesGcmCodecOptions = { keys: { k2: process.env.KEY_2!, k1: process.env.KEY_1! }, encryptWith: 'k2' };
 * ```
 */
export type AesGcmCodecOptions = KeySet;

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const utf8 = new TextEncoder();
const text = new TextDecoder();
const ProtoPayload = proto.temporal.api.common.v1.Payload;

/**
 * A Temporal payload codec that encrypts every payload with AES-256-GCM, so what the Temporal
 * server stores (histories, memos, query answers, signals) is unreadable without your key. Each
 * payload is encrypted whole (its metadata and data, as the SDK's protobuf `Payload`) under a fresh
 * random 12-byte IV; the result is marked `encoding: binary/encrypted` and names its key in
 * `encryption-key-id`, so keys can rotate. `decode` refuses a payload whose key it does not hold,
 * or that was altered, and passes through payloads that are not marked (written before encryption
 * was on).
 *
 * Give the same codec to the worker (`createWorker({ payloadCodec })`), to every Temporal `Client`
 * that reads or starts runs (the API's included: `dataConverter: { payloadCodecs: [codec] }`), and
 * to the API for its codec endpoint (`payloadCodec`). Keys are checked here: 32 bytes each, and
 * `encryptWith` among them.
 *
 * @example
 * ```ts
 * import { Client, Connection } from '@temporalio/client';
 * import { aesGcmCodec } from 'countersign';
 * import { createWorker } from 'countersign/worker';
 *
 * // node -e "console.log(require('crypto').randomBytes(32).toString('base64'))"
 * const payloadCodec = aesGcmCodec({ keys: { k1: process.env.COUNTERSIGN_KEY_1! }, encryptWith: 'k1' });
 * const worker = await createWorker({ connection, agents, model, payloadCodec });
 * const client = new Client({
 *   connection: await Connection.connect({ address: 'temporal.internal:7233' }),
 *   dataConverter: { payloadCodecs: [payloadCodec] },
 * });
 * ```
 */
export function aesGcmCodec(options: AesGcmCodecOptions): PayloadCodec {
  const ring = keyring(options, 'aesGcmCodec');
  const { current, held } = ring;
  const keyId = utf8.encode(options.encryptWith);
  const marker = utf8.encode(ENCRYPTED_ENCODING);

  const encrypt = (payload: Payload): Payload => {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, current, iv);
    // The key id is authenticated too: a payload cannot be passed off under another id.
    cipher.setAAD(keyId);
    const plain = ProtoPayload.encode(payload).finish();
    const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return { metadata: { encoding: marker, [ENCRYPTION_KEY_ID]: keyId }, data: sealed };
  };

  const decrypt = (payload: Payload): Payload => {
    const id = text.decode(payload.metadata?.[ENCRYPTION_KEY_ID] ?? new Uint8Array());
    if (!id) throw new Error('aesGcmCodec: an encrypted payload names no key (no encryption-key-id)');
    const key = ring.get(id);
    if (!key) {
      throw new Error(
        `aesGcmCodec: a payload is encrypted with key "${id}", which this codec does not hold (it holds ${held})`,
      );
    }
    const data = payload.data ?? new Uint8Array();
    if (data.length < IV_BYTES + TAG_BYTES) {
      throw new Error(`aesGcmCodec: a payload encrypted with key "${id}" is too short to be one`);
    }
    const decipher = createDecipheriv(ALGORITHM, key, data.subarray(0, IV_BYTES));
    decipher.setAAD(utf8.encode(id));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([
        decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      throw new Error(
        `aesGcmCodec: a payload encrypted with key "${id}" does not authenticate: another key under that id, or altered data`,
      );
    }
    const { metadata, data: inner, externalPayloads } = ProtoPayload.decode(plain);
    return { metadata, data: inner, ...(externalPayloads.length > 0 ? { externalPayloads } : {}) };
  };

  return {
    async encode(payloads) {
      return payloads.map(encrypt);
    },
    async decode(payloads) {
      return payloads.map((p) =>
        p.metadata?.encoding && text.decode(p.metadata.encoding) === ENCRYPTED_ENCODING ? decrypt(p) : p,
      );
    },
  };
}
