import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The HMAC key for email links and webhooks: the configured one, else one generated once into
 * `<dataDir>/signing-secret` so links sent before a restart still verify after it.
 *
 * @example
 * ```ts
 * import { loadSigningSecret } from 'countersign';
 *
 * // One secret for the notifier, which signs links, and the router, which verifies them.
 * const signingSecret = loadSigningSecret('/var/lib/countersign', process.env.LINK_SECRET);
 * ```
 */
export function loadSigningSecret(dataDir: string, configured?: string): string {
  if (configured) return configured;
  const file = path.join(dataDir, 'signing-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
