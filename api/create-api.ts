import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router } from 'express';
import { approverOf, requireApprover, tokenAuthentication } from './auth.js';
import { resolveApiOptions, type CountersignApiOptions } from './context.js';
import { refuseCrossSite } from './cross-site.js';
import { documentedMethods } from './documented-methods.js';
import { errorHandler, notFound } from './errors.js';
import { RunEventFeed } from './live/event-feed.js';
import { limitJsonDepth } from './json-depth.js';
import { openApiDocument } from './openapi.js';
import { requireJsonBody } from './require-json.js';
import { agentsRouter } from './routes/agents.js';
import { approvalsRouter } from './routes/approvals.js';
import { codecRouter } from './routes/codec.js';
import { linksRouter } from './routes/links.js';
import { runsRouter } from './routes/runs.js';
import { slackRouter } from './routes/slack.js';
import { standingRouter } from './routes/standing.js';
import type { Me } from './schemas.js';
import { allEventsStream } from './live/sse.js';
import { limitEventStreams } from './live/stream-slots.js';
import { jsonSchemaModules } from './vendor-modules.js';

export type { CountersignApiOptions, Authenticate, FindApprover } from './context.js';

const WEB_ROOT = fileURLToPath(new URL('../web/', import.meta.url));

/**
 * Countersign's REST API (`/api`), email-link pages (`/links`) and the inbox (`/`), as one router to
 * mount in your own express app at a path of your choosing. Stateless: every read and write goes to
 * Temporal, so any number of instances can serve one cluster. Set `publicUrl` to where the router
 * is reached, mount path included.
 *
 * @example
 * ```ts
 * const app = express();
 * app.use(
 *   '/approvals',
 *   countersignRouter({
 *     client,
 *     agents: [support],
 *     signingSecret: process.env.LINK_SECRET!,
 *     publicUrl: 'https://ops.example.com/approvals',
 *     // Your own sessions: who the request comes from, and the groups a policy names them by.
 *     authenticate: async (req) => {
 *       const user = await sessions.userOf(req.get('cookie'));
 *       return user && { id: user.email, roles: user.groups };
 *     },
 *   }),
 * );
 * ```
 */
export function countersignRouter(options: CountersignApiOptions): Router {
  const resolved = resolveApiOptions(options, tokenAuthentication);
  const router = Router();
  router.use((_req, res, next) => {
    res.set({ 'X-Content-Type-Options': 'nosniff', 'X-Frame-Options': 'DENY' });
    next();
  });

  const openapi = openApiDocument(resolved.publicUrl, { slack: resolved.slack !== undefined });
  router.use(documentedMethods(openapi));
  router.get('/api/openapi.json', (_req, res) => {
    res.json(openapi);
  });

  // Before the rest of the API: its own CORS, body limit and roles (the Temporal Web UI calls it).
  router.use('/api/codec', codecRouter(resolved));

  const api = Router();
  // Before anything reads the body. Left out: the codec endpoint above (it changes nothing, and the
  // Temporal Web UI calls it from its own origin) and email links (the signed link in their URL, not
  // a cookie, names the approver: a page that could forge their form already holds the link).
  api.use(refuseCrossSite(resolved.publicUrl));
  api.use(express.json({ limit: '256kb', strict: true }));
  api.use(requireJsonBody);
  api.use(limitJsonDepth);
  api.use(requireApprover(resolved.authenticate));
  // One count for both stream routes, taken before either reads anything.
  api.get(['/events', '/runs/:runId/events'], limitEventStreams(resolved.eventStreams));
  api.use('/runs', runsRouter(resolved));
  api.use('/runs', standingRouter(resolved));
  api.use('/approvals', approvalsRouter(resolved));
  api.use('/agents', agentsRouter(resolved));
  api.get('/events', allEventsStream(resolved, new RunEventFeed(resolved)));
  api.get('/me', (_req, res) => {
    const { id, name, email, roles } = approverOf(res);
    res.json({ approver: { id, name, email, roles } } satisfies Me);
  });
  api.use(notFound);
  router.use('/api', api);

  router.use('/links', linksRouter(resolved));
  // Slack signs its requests itself: no bearer token, no cross-site check, its own body parsing.
  if (resolved.slack) router.use('/slack', slackRouter(resolved, resolved.slack));
  // The inbox asks for `api/...` relative to its own page: the page must end in a slash.
  router.get('/', (req, res, next) => {
    const [pathname, query] = req.originalUrl.split('?');
    if (pathname!.endsWith('/')) return next();
    res.redirect(308, `${pathname}/${query !== undefined ? `?${query}` : ''}`);
  });
  router.use('/vendor/json-schema', jsonSchemaModules());
  router.use(
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
  router.use(notFound);
  router.use(errorHandler);
  return router;
}

/**
 * An express application serving `countersignRouter` at its root, for a service of its own (the
 * demo's `npm start` runs one).
 *
 * @example
 * ```ts
 * createApi({ client, agents, approvers, signingSecret, publicUrl: 'http://127.0.0.1:3000' }).listen(3000);
 * ```
 */
export function createApi(options: CountersignApiOptions): express.Application {
  const app = express();
  app.disable('x-powered-by');
  app.use(countersignRouter(options));
  return app;
}
