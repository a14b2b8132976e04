import { createHmac, timingSafeEqual } from 'node:crypto';
import { signingKeyId } from '../../notify/signing-key-id.js';
import { HttpError } from '../errors.js';
import { SIGNING_SECRET_SETTING, warnSigningMismatch } from '../signing-mismatch.js';

/**
 * Temporal's list page tokens, sealed with the signing secret and bound to the query they page.
 * A real cluster answers a token it cannot parse with an internal error (SQL visibility) or pages
 * another query silently: the API takes back only tokens it handed out for this very query, so any
 * API instance sharing the secret continues any page.
 *
 * A token is `FORMAT`, the signing key id (6 bytes), the MAC, then Temporal's token: the key id
 * lets an API with another secret say so instead of calling the token forged.
 */
const FORMAT = 1;
const KEY_ID_BYTES = 6;
const HEADER_BYTES = 1 + KEY_ID_BYTES;
const MAC_BYTES = 16;

function header(secret: string): Buffer {
  return Buffer.concat([Buffer.of(FORMAT), Buffer.from(signingKeyId(secret), 'hex')]);
}

function mac(secret: string, query: string, head: Uint8Array, raw: Uint8Array): Buffer {
  return createHmac('sha256', secret)
    .update('countersign-page-token\0')
    .update(query)
    .update('\0')
    .update(head)
    .update(raw)
    .digest()
    .subarray(0, MAC_BYTES);
}

export function sealPageToken(secret: string, query: string, raw: Uint8Array): string {
  const head = header(secret);
  return Buffer.concat([head, mac(secret, query, head, raw), raw]).toString('base64url');
}

/**
 * The raw token, or a 422 for one this API did not return for this query: well-formed, so no schema
 * tells it apart, and refused rather than paging another query. One that names another signing key
 * id is `signing_secret_mismatch`: that id is unverified, so a forged token can pick this refusal,
 * and it is a refusal all the same.
 */
export function openPageToken(secret: string, query: string, token: string): Buffer {
  const bytes = Buffer.from(token, 'base64url');
  const head = bytes.subarray(0, HEADER_BYTES);
  const given = bytes.subarray(HEADER_BYTES, HEADER_BYTES + MAC_BYTES);
  const raw = bytes.subarray(HEADER_BYTES + MAC_BYTES);
  if (
    bytes.toString('base64url') === token &&
    given.length === MAC_BYTES &&
    timingSafeEqual(given, mac(secret, query, head, raw))
  ) {
    return raw;
  }
  const keyId = signingKeyId(secret);
  const signerKeyId = head.subarray(1).toString('hex');
  if (given.length === MAC_BYTES && head[0] === FORMAT && signerKeyId !== keyId) {
    warnSigningMismatch('a pageToken', signerKeyId, keyId);
    throw new HttpError(
      422,
      `pageToken was sealed by a Countersign API with another signing secret: every API instance must share one ${SIGNING_SECRET_SETTING}. Start from the first page.`,
      { code: 'signing_secret_mismatch' },
    );
  }
  throw new HttpError(422, 'pageToken is not one this API returned for this list', {
    code: 'invalid_page_token',
  });
}
