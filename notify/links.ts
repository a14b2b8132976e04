import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { SIGNING_KEY_ID, signingKeyId } from './signing-key-id.js';

/** What an email link may do. Anything else (edit, respond) happens in the inbox. */
export const LinkAction = z.enum(['approve', 'reject']);
export type LinkAction = z.infer<typeof LinkAction>;

const LinkPayload = z.strictObject({
  v: z.literal(1),
  /** Tracking id. */
  t: z.string().min(1).max(200),
  /** Approver id. */
  a: z.string().min(1).max(200),
  x: LinkAction,
  /** Expiry, epoch milliseconds: the approval's deadline. */
  e: z.number().int(),
  /** Nonce: the workflow takes each one once, which makes the link single-use. */
  n: z.string().min(8).max(64),
  /** The proposal's revision the email showed: the link decides that one or nothing. */
  r: z.number().int().min(1).optional(),
  /** The signer's signing key id; absent in links signed before it was added. */
  k: z.string().regex(SIGNING_KEY_ID).optional(),
});

export interface LinkClaims {
  trackingId: string;
  approverId: string;
  action: LinkAction;
  expiresAt: number;
  nonce: string;
  /** Absent only in links signed before revisions; the workflow refuses those. */
  revision?: number;
}

export type LinkCheck =
  | { ok: true; claims: LinkClaims }
  | { ok: false; reason: 'invalid' | 'expired'; claims?: LinkClaims }
  /**
   * The signature does not verify and the link names another signing key id than this secret's:
   * most likely a link signed by an instance with another signing secret. The id is unverified.
   */
  | { ok: false; reason: 'other_secret'; signerKeyId: string; keyId: string };

// A domain prefix keeps a link signature from ever verifying as a webhook signature or vice versa.
function mac(secret: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(`countersign-link.v1.${payload}`).digest();
}

export function signLink(secret: string, claims: Omit<LinkClaims, 'nonce'> & { nonce?: string }): string {
  const payload = Buffer.from(
    JSON.stringify({
      v: 1,
      t: claims.trackingId,
      a: claims.approverId,
      x: claims.action,
      e: claims.expiresAt,
      n: claims.nonce ?? randomBytes(16).toString('base64url'),
      r: claims.revision,
      k: signingKeyId(secret),
    }),
  ).toString('base64url');
  return `${payload}.${mac(secret, payload).toString('base64url')}`;
}

/** Checks signature first, then shape, then expiry; a forged or tampered token never reveals its claims. */
export function verifyLink(secret: string, token: string, now = Date.now()): LinkCheck {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return { ok: false, reason: 'invalid' };
  // Compared as text: base64url's unused low bits would let a second spelling decode to the same bytes.
  const expected = Buffer.from(mac(secret, payload).toString('base64url'));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return otherSecret(secret, payload) ?? { ok: false, reason: 'invalid' };
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  const parsed = LinkPayload.safeParse(raw);
  if (!parsed.success) return { ok: false, reason: 'invalid' };
  const p = parsed.data;
  const claims: LinkClaims = {
    trackingId: p.t,
    approverId: p.a,
    action: p.x,
    expiresAt: p.e,
    nonce: p.n,
    ...(p.r !== undefined ? { revision: p.r } : {}),
  };
  if (now >= p.e) return { ok: false, reason: 'expired', claims };
  return { ok: true, claims };
}

/**
 * The refusal of a link whose signature failed but whose payload names another signing key id. The
 * payload is unverified: a forger may name any id, and that only picks which refusal they get (this
 * one, or `invalid` when they name this secret's own); either way the link decides nothing.
 */
function otherSecret(secret: string, payload: string): LinkCheck | undefined {
  let signerKeyId: unknown;
  try {
    signerKeyId = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { k?: unknown })?.k;
  } catch {
    return undefined;
  }
  const keyId = signingKeyId(secret);
  if (typeof signerKeyId !== 'string' || !SIGNING_KEY_ID.test(signerKeyId) || signerKeyId === keyId)
    return undefined;
  return { ok: false, reason: 'other_secret', signerKeyId, keyId };
}
