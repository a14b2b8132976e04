/**
 * The remote codec protocol the Temporal Web UI and the `temporal` CLI speak: `POST .../encode`
 * and `POST .../decode` with `{ payloads: [{ metadata, data }] }` (proto3 JSON: bytes as base64),
 * answered in the same shape. Behind the API's authentication, for the codec roles only.
 */
import type { Payload } from '@temporalio/common';
import express, { Router, type RequestHandler } from 'express';
import { ADMIN_ROLE } from '../access.js';
import { approverOf, requireApprover } from '../auth.js';
import { codecCors, corsOrigins } from '../codec-cors.js';
import type { ApiOptions } from '../context.js';
import { HttpError, notFound, parse } from '../errors.js';
import { limitJsonDepth } from '../json-depth.js';
import { requireJsonBody } from '../require-json.js';
import { CodecPayloads } from '../schemas.js';

/**
 * A history's payloads reach 2 MB each on a default cluster, and the UI may send several at once;
 * only callers with a codec role get this far.
 */
const BODY_LIMIT = '8mb';

const fromJson = ({ metadata, data }: CodecPayloads['payloads'][number]): Payload => ({
  metadata: Object.fromEntries(
    Object.entries(metadata ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64')]),
  ),
  data: Buffer.from(data ?? '', 'base64'),
});

const toJson = ({ metadata, data }: Payload): CodecPayloads['payloads'][number] => ({
  metadata: Object.fromEntries(
    Object.entries(metadata ?? {}).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
  ),
  data: Buffer.from(data ?? new Uint8Array()).toString('base64'),
});

export function codecRouter(options: ApiOptions): Router {
  const origins = corsOrigins(options.codecCorsOrigins);
  const roles = options.codecRoles ?? [ADMIN_ROLE];

  const mayUseCodec: RequestHandler = (_req, res, next) => {
    if (!approverOf(res).roles.some((role) => roles.includes(role))) {
      throw new HttpError(403, `the codec endpoint is for the roles ${roles.join(', ')}`, {
        code: 'role_not_allowed',
      });
    }
    next();
  };

  const transform =
    (direction: 'encode' | 'decode'): RequestHandler =>
    async (req, res) => {
      const codec = options.payloadCodec;
      if (!codec) {
        throw new HttpError(404, 'this API was given no payloadCodec: payloads are not encrypted', {
          code: 'no_payload_codec',
        });
      }
      // The CLI may name the namespace in the path ({namespace} in --codec-endpoint); the UI sends X-Namespace.
      const named = (req.params.namespace as string | undefined) ?? req.get('x-namespace');
      if (named && named !== options.namespace) {
        throw new HttpError(404, `this codec serves the namespace ${options.namespace} only`, {
          code: 'not_found',
        });
      }
      const { payloads } = parse(CodecPayloads, req.body);
      let result: Payload[];
      try {
        result = await codec[direction](payloads.map(fromJson));
      } catch (error) {
        // The protocol's answer to a payload the codec refuses: 400, saying why (a key id, never a key).
        throw new HttpError(400, `cannot ${direction}: ${(error as Error).message}`, {
          code: `${direction}_failed`,
        });
      }
      res.set('Cache-Control', 'no-store');
      res.json({ payloads: result.map(toJson) } satisfies CodecPayloads);
    };

  const router = Router();
  router.use(codecCors(origins));
  // Authenticated before the body is read: an unknown caller's megabytes are never parsed.
  router.use(requireApprover(options.authenticate));
  router.use(mayUseCodec);
  router.use(express.json({ limit: BODY_LIMIT, strict: true }));
  router.use(requireJsonBody);
  router.use(limitJsonDepth);
  router.post(['/encode', '/:namespace/encode'], transform('encode'));
  router.post(['/decode', '/:namespace/decode'], transform('decode'));
  router.use(notFound);
  return router;
}
