import type { RequestHandler } from 'express';
import { HttpError } from './errors.js';

/**
 * A path of the OpenAPI document asked with a method the document does not give it is a 405 with
 * the `Allow` of those it does (HEAD goes with GET, as express serves it), before authentication:
 * the document is public, so this tells no one anything it does not. The document is the one
 * source, so a route and its methods cannot drift apart from what it says.
 */
export function documentedMethods(document: Record<string, unknown>): RequestHandler {
  const paths = document.paths as Record<string, Record<string, unknown>>;
  const routes = Object.entries(paths).map(([template, operations]) => {
    const methods = Object.keys(operations).map((method) => method.toUpperCase());
    if (methods.includes('GET')) methods.push('HEAD');
    // `{runId}` is one path segment, as express's `:runId` is; its routing ignores case and a final slash.
    const segments = template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    return { pattern: new RegExp(`^${segments.join('[^/]+')}/?$`, 'i'), methods };
  });
  return (req, res, next) => {
    const route = routes.find(({ pattern }) => pattern.test(req.path));
    if (!route || route.methods.includes(req.method)) return next();
    const allow = route.methods.join(', ');
    res.set('Allow', allow);
    throw new HttpError(405, `${req.method} is not a method of ${req.path}: it takes ${allow}`, {
      code: 'method_not_allowed',
    });
  };
}
