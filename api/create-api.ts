import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { approverOf, requireApprover } from './auth.js';
import type { ApiOptions } from './context.js';
import { errorHandler, notFound } from './errors.js';
import { RunEventFeed } from './event-feed.js';
import { limitJsonDepth } from './json-depth.js';
import { requireJsonBody } from './require-json.js';
import { openApiDocument } from './openapi.js';
import { agentsRouter } from './routes/agents.js';
import { approvalsRouter } from './routes/approvals.js';
import { linksRouter } from './routes/links.js';
import { runsRouter } from './routes/runs.js';
import type { Me } from './schemas.js';
import { allEventsStream } from './sse.js';

export type { ApiOptions } from './context.js';

const WEB_ROOT = fileURLToPath(new URL('../web/', import.meta.url));

/**
 * The REST API under /api, email-link pages under /links, and the inbox at /. Stateless: every
 * read and write goes to Temporal, so any number of instances can serve one cluster.
 */
export function createApi(options: ApiOptions): express.Application {
  const app = express();
  app.disable('x-powered-by');
  app.use((_req, res, next) => {
    res.set({ 'X-Content-Type-Options': 'nosniff', 'X-Frame-Options': 'DENY' });
    next();
  });

  const openapi = openApiDocument(options.publicUrl);
  app.get('/api/openapi.json', (_req, res) => {
    res.json(openapi);
  });

  const api = express.Router();
  api.use(express.json({ limit: '256kb', strict: true }));
  api.use(requireJsonBody);
  api.use(limitJsonDepth);
  api.use(requireApprover(options.approvers));
  api.use('/runs', runsRouter(options));
  api.use('/approvals', approvalsRouter(options));
  api.use('/agents', agentsRouter(options));
  api.get('/events', allEventsStream(options, new RunEventFeed(options)));
  api.get('/me', (_req, res) => {
    const { id, name, email, roles } = approverOf(res);
    res.json({ approver: { id, name, email, roles } } satisfies Me);
  });
  api.use(notFound);
  app.use('/api', api);

  app.use('/links', linksRouter(options));
  app.use(
    express.static(path.resolve(WEB_ROOT), {
      index: 'index.html',
      setHeaders: (res) => {
        res.set(
          'Content-Security-Policy',
          "default-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'",
        );
      },
    }),
  );
  app.use(notFound);
  app.use(errorHandler);
  return app;
}
