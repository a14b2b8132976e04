// The team's own express service, with its own sessions, mounting Countersign under a path of its own.
import express from 'express';
import type { Client } from '@temporalio/client';
import { countersignRouter, type Authenticate } from 'countersign';
import { refunds } from './agent.js';

/** The service's own users, by session id (a cookie in real life). */
const sessions: Record<string, { email: string; groups: string[] }> = {
  'session-sam': { email: 'sam@example.com', groups: ['support'] },
  'session-lee': { email: 'lee@example.com', groups: ['support-lead'] },
};

const authenticate: Authenticate = (req) => {
  const user = sessions[req.get('x-session') ?? ''];
  return user && { id: user.email, roles: user.groups };
};

export function buildApp(client: Client, taskQueue: string, publicUrl: string): express.Application {
  const app = express();
  app.get('/health', (_req, res) => {
    res.json({ ok: true });
  });
  app.use(
    '/ops/approvals',
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
