import express, { Router } from 'express';
import type { ApiOptions } from '../context.js';
import { slackInteractions } from '../slack/interactions.js';
import type { SlackRouterOptions } from '../slack/options.js';
import { readInteraction } from '../slack/payloads.js';
import { verifySlackSignature } from '../slack/signature.js';

/**
 * `POST /slack/interactions`, the Slack app's interactivity URL. The signature is checked on the
 * body as sent, before it is parsed; Slack is answered at once (it waits 3 seconds at most: an
 * edit's form is checked first, its errors shown in it) and the decision is taken after, its
 * refusals told to the clicker.
 */
export function slackRouter(options: ApiOptions, slack: SlackRouterOptions): Router {
  const router = Router();
  const handle = slackInteractions(options, slack);
  router.post(
    '/interactions',
    express.raw({ type: () => true, limit: '1mb' }),
    verifySlackSignature(slack.signingSecret),
    async (req, res) => {
      const interaction = readInteraction(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
      const { answer, after } = await handle(interaction);
      if (answer) res.status(200).json(answer);
      else res.status(200).end();
      void after();
    },
  );
  return router;
}
