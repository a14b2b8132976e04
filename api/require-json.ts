import type { RequestHandler } from 'express';
import { HttpError } from './errors.js';

/**
 * A body sent as anything but JSON is a 415 that says so, rather than a body the JSON parser
 * skipped and a validator then calls `undefined`. A request without a body passes: the route
 * says what it needs.
 */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  const hasBody =
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody && !req.is('application/json')) {
    const sent = req.headers['content-type']
      ? `Content-Type: ${req.headers['content-type']}`
      : 'no Content-Type';
    throw new HttpError(
      415,
      `send the request body as JSON, with Content-Type: application/json (this one has ${sent})`,
      {
        code: 'unsupported_media_type',
      },
    );
  }
  next();
};
