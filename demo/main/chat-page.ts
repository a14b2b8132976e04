import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router } from 'express';
import { countersignChat, countersignRouter, type CountersignApiOptions } from 'countersign/api';

/** The agent the chat page talks to. */
export const CHAT_AGENT = 'bank-transfer';

/** Where scripts/build-chat.mjs writes the page (`npm ci` runs it). */
const PAGE_DIR = fileURLToPath(new URL('../chat/dist/', import.meta.url));

/**
 * The API and inbox, with the demo's chat page beside them: `/chat/` serves the page (React and the
 * AI SDK's `useChat`), `/chat/api` is countersignChat for the bank-transfer agent, under the same
 * options and authentication as the router.
 */
export function demoApp(options: CountersignApiOptions): express.Application {
  const app = express();
  app.disable('x-powered-by');
  if (options.agents.some((agent) => agent.name === CHAT_AGENT)) app.use('/chat', chatPage(options));
  app.use(countersignRouter(options));
  return app;
}

function chatPage(options: CountersignApiOptions): Router {
  const router = Router();
  router.use('/api', countersignChat({ ...options, agent: CHAT_AGENT }));
  // The page asks for `api` relative to itself: its address must end in a slash.
  router.get('/', (req, res, next) => {
    const [pathname, query] = req.originalUrl.split('?');
    if (pathname!.endsWith('/')) return next();
    res.redirect(308, `${pathname}/${query !== undefined ? `?${query}` : ''}`);
  });
  router.use(
    express.static(path.resolve(PAGE_DIR), {
      setHeaders: (res) => {
        res.set({
          'Content-Security-Policy':
            "default-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'",
          'X-Content-Type-Options': 'nosniff',
        });
      },
    }),
  );
  router.get('/', (_req, res) => {
    res
      .status(503)
      .type('text/plain')
      .send('The chat page is not built: run `node scripts/build-chat.mjs` (npm ci does), then reload.\n');
  });
  return router;
}
