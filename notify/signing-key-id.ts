import { createHash } from 'node:crypto';

/** A signing key id as `signingKeyId` writes it. */
export const SIGNING_KEY_ID = /^[0-9a-f]{12}$/;

/**
 * A short id of a signing secret (12 hex characters), carried beside what the secret signs so that
 * an instance refusing a signature can say "signed with another secret" rather than "forged". It is
 * a plain hash under its own prefix, never the MAC key nor any MAC output, and tells no more about
 * the secret than one signed link or webhook already does (a candidate secret can be tested against
 * either); a secret of 32 random bytes or more leaves nothing to guess.
 *
 * @example
 * ```ts
 * import { signingKeyId } from 'countersign';
 *
 * // The same on every worker and API instance that shares the secret.
 * console.log('signing key id', signingKeyId(process.env.COUNTERSIGN_SIGNING_SECRET!));
 * ```
 */
export function signingKeyId(secret: string): string {
  return createHash('sha256')
    .update('countersign-signing-key-id.v1\0')
    .update(secret)
    .digest('hex')
    .slice(0, 12);
}
