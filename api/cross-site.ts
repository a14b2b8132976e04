import type { Request, RequestHandler } from 'express';
import { HttpError } from './errors.js';

/** Methods that change nothing here, so a page of any site may send them. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses a browser's request from another site to change anything. A host's session cookie rides
 * along on a form posted from any page, and a POST without a body meets neither the JSON rule nor a
 * CORS preflight. The browser says where a request comes from: `Sec-Fetch-Site` where it sends one,
 * else `Origin`, which must be the public URL's origin or the request's own. A request with neither
 * does not come from a page (the CLI, curl, another server) and passes.
 */
export function refuseCrossSite(publicUrl: string): RequestHandler {
  const publicOrigin = new URL(publicUrl).origin;
  const ownOrigins = (req: Request) => [publicOrigin, `${req.protocol}://${req.get('host')}`];
  return (req, _res, next) => {
    if (SAFE_METHODS.has(req.method)) return next();
    const site = req.get('sec-fetch-site');
    // `none` is the person's own doing (an address typed, a bookmark). `same-site` is a sibling host,
    // another origin: its Origin decides.
    if (site === 'same-origin' || site === 'none') return next();
    const origin = req.get('origin');
    if (site === undefined && origin === undefined) return next();
    if (site !== 'cross-site' && origin !== undefined && ownOrigins(req).includes(origin)) return next();
    throw new HttpError(
      403,
      `refused a request from another site (${origin ?? `Sec-Fetch-Site: ${site}`}): only pages of ${publicOrigin} may change anything here; nothing was changed`,
      { code: 'cross_site_request' },
    );
  };
}
