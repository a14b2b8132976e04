import { createHmac, timingSafeEqual } from 'node:crypto';
import { HttpError } from '../errors.js';

/**
 * Temporal's list page tokens, sealed with the signing secret and bound to the query they page.
 * A real cluster answers a token it cannot parse with an internal error (SQL visibility) or pages
 * another query silently: the API takes back only tokens it handed out for this very query, so any
 * API instance sharing the secret continues any page.
 */
const MAC_BYTES = 16;

function mac(secret: string, query: string, raw: Uint8Array): Buffer {
  return createHmac('sha256', secret)
    .update('countersign-page-token\0')
    .update(query)
    .update('\0')
    .update(raw)
    .digest()
    .subarray(0, MAC_BYTES);
}

export function sealPageToken(secret: string, query: string, raw: Uint8Array): string {
  return Buffer.concat([mac(secret, query, raw), raw]).toString('base64url');
}

/**
 * The raw token, or a 422 for one this API did not return for this query: well-formed, so no schema
 * tells it apart, and refused rather than paging another query.
 */
export function openPageToken(secret: string, query: string, token: string): Buffer {
  const bytes = Buffer.from(token, 'base64url');
  const raw = bytes.subarray(MAC_BYTES);
  const given = bytes.subarray(0, MAC_BYTES);
  if (
    bytes.toString('base64url') !== token ||
    given.length !== MAC_BYTES ||
    !timingSafeEqual(given, mac(secret, query, raw))
  ) {
    throw new HttpError(422, 'pageToken is not one this API returned for this list', {
      code: 'invalid_page_token',
    });
  }
  return raw;
}
