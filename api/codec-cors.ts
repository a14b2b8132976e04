import type { RequestHandler } from 'express';
import { HttpError } from './errors.js';

/** What the Temporal Web UI sends with a codec request: its token, JSON, and the namespace. */
const ALLOWED_HEADERS = 'Authorization, Content-Type, X-Namespace';

/**
 * The origins a browser may call the codec endpoint from, checked when the API is built: exact
 * origins only, since the answers carry decrypted payloads and credentials.
 */
export function corsOrigins(origins: readonly string[] = []): ReadonlySet<string> {
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== origin) {
      throw new TypeError(
        `countersign: codecCorsOrigins takes origins such as https://temporal.example.com (scheme, host, port; no path, no *), not ${JSON.stringify(origin)}`,
      );
    }
  }
  return new Set(origins);
}

/**
 * CORS for the codec endpoint: a configured origin may call it with credentials (the Web UI's
 * access token, or cookies); a preflight from any other origin is refused. Requests without an
 * Origin (the `temporal` CLI, curl) are not CORS and pass.
 */
export function codecCors(origins: ReadonlySet<string>): RequestHandler {
  return (req, res, next) => {
    const origin = req.get('origin');
    const allowed = origin !== undefined && origins.has(origin);
    res.vary('Origin');
    if (allowed) {
      res.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Credentials': 'true' });
    }
    if (req.method !== 'OPTIONS') return next();
    if (origin !== undefined && !allowed) {
      throw new HttpError(403, `origin ${origin} may not call the codec endpoint (codecCorsOrigins)`, {
        code: 'origin_not_allowed',
      });
    }
    res.set({
      Allow: 'POST, OPTIONS',
      ...(allowed
        ? {
            'Access-Control-Allow-Methods': 'POST, OPTIONS',
            'Access-Control-Allow-Headers': ALLOWED_HEADERS,
            'Access-Control-Max-Age': '600',
          }
        : {}),
    });
    res.status(204).end();
  };
}
