// The team's own express service, with its own cookie sessions, mounting Countersign under a path
// of its own as the README shows.
import { randomUUID } from 'node:crypto';
import express from 'express';
import type { Client } from '@temporalio/client';
import { countersignRouter, type Authenticate } from 'countersign/api';
import { refunds } from './agent.js';

/** The service's own users, by login name. */
const users: Record<string, { email: string; groups: string[] }> = {
  sam: { email: 'sam@example.com', groups: ['support'] },
  lee: { email: 'lee@example.com', groups: ['support-lead'] },
};
/** Signed-in users, by the session id their cookie holds. */
const sessions = new Map<string, { email: string; groups: string[] }>();

const sessionOf = (cookie: string | undefined) => /(?:^|;\s*)session=([^;]+)/.exec(cookie ?? '')?.[1];

const authenticate: Authenticate = (req) => {
  const user = sessions.get(sessionOf(req.get('cookie')) ?? '');
  return user && { id: user.email, roles: user.groups };
};

/** Requests that reached the service's own files and API at the site's root. */
export const hostRequests: string[] = [];

export function buildApp(client: Client, taskQueue: string, publicUrl: string): express.Application {
  const app = express();
  app.get('/health', (_req, res) => {
    res.json({ ok: true });
  });
  // The service's own front end and API at the root, at the paths a page of its own would use.
  // Were the inbox to ask for them, the service's script would run in the inbox's place.
  app.use(['/js', '/style.css', '/favicon.svg', '/vendor', '/api'], (req, res) => {
    hostRequests.push(req.originalUrl);
    res.type('text/javascript').send('document.body.textContent = "the service\'s own page";');
  });

  // A tiny login: the form sets a session cookie and goes on to the approvals.
  app.get('/login', (_req, res) => {
    res
      .type('html')
      .send(
        '<!doctype html><title>Sign in</title><form method="post" action="/login"><label for="user">User</label><input id="user" name="user"><button>Sign in</button></form>',
      );
  });
  app.post('/login', express.urlencoded({ extended: false }), (req, res) => {
    const user = users[String(req.body.user)];
    if (!user) {
      res.status(401).type('text').send('unknown user');
      return;
    }
    const session = randomUUID();
    sessions.set(session, user);
    res.cookie('session', session, { httpOnly: true, sameSite: 'lax', path: '/' });
    res.redirect(303, '/approvals/');
  });

  app.use(
    '/approvals',
    countersignRouter({
      client,
      taskQueue,
      agents: [refunds],
      authenticate,
      signingSecret: 'adoption-test-signing-secret-0123456789abcdef',
      publicUrl,
    }),
  );
  return app;
}
