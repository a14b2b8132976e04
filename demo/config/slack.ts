import { z } from 'zod';

/** Slack's settings, from the environment: off when neither the bot token nor the signing secret is set. */
const Env = z.object({
  SLACK_BOT_TOKEN: z.string().startsWith('xoxb-', 'a bot token (xoxb-…)').optional(),
  SLACK_SIGNING_SECRET: z.string().min(16).optional(),
  /** A channel id (C…) to post every approval in; without it, approvers get direct messages only. */
  SLACK_CHANNEL: z
    .string()
    .regex(/^[CG][A-Z0-9]+$/, 'a channel id (C…), not its name')
    .optional(),
});

/** What the notifier (cards) and the router (their buttons) are given. */
export interface DemoSlack {
  notifier: { botToken: string; channel?: string };
  router: { botToken: string; signingSecret: string };
  channel?: string;
}

export function loadSlackConfig(env: NodeJS.ProcessEnv = process.env): DemoSlack | undefined {
  const parsed = Env.safeParse(env);
  if (!parsed.success) throw new Error(`invalid Slack settings: ${z.prettifyError(parsed.error)}`);
  const {
    SLACK_BOT_TOKEN: botToken,
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_CHANNEL: channel,
  } = parsed.data;
  if (!botToken && !signingSecret) return undefined;
  // Cards whose buttons nobody could verify, or buttons with no cards: say which is missing.
  if (!botToken || !signingSecret)
    throw new Error(
      'Slack needs both SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (or neither, to leave it off)',
    );
  return {
    notifier: { botToken, ...(channel ? { channel } : {}) },
    router: { botToken, signingSecret },
    ...(channel ? { channel } : {}),
  };
}
