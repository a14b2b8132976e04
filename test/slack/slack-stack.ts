import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { ApproverConfig } from '../../protocol/index.js';
import { testApprovers } from '../support/api-agents.js';
import { startStack, type Stack, type StackOptions } from '../support/stack.js';
import { sendInteraction, startFakeSlack, type FakeSlack, type SlackCall } from './fake-slack.js';

/** The Slack workspace of the tests: the channel, the bot's token and the app's signing secret. */
export const CHANNEL = 'C0APPROVALS';
export const BOT_TOKEN = 'xoxb-test-bot-token';
export const SIGNING_SECRET = 'slack-signing-secret-0123456789abcdef';

/**
 * The API tests' approvers, as Slack knows them: alice by her Slack id, bob by his email alone,
 * victor (a viewer, no role that decides) by his id; carol, a treasurer, has no Slack account. A
 * stranger is in Slack and no approver.
 */
export const slackApprovers: ApproverConfig[] = [
  ...testApprovers.map((a) =>
    a.id === 'alice' ? { ...a, slackId: 'U0ALICE' } : a.id === 'victor' ? { ...a, slackId: 'U0VICTOR' } : a,
  ),
  { id: 'carol', email: 'carol@example.com', roles: ['treasurer'], token: 'carol-token-0123456789abcdef' },
];
export const members = [
  { id: 'U0ALICE', email: 'alice@example.com' },
  { id: 'U0BOB', email: 'bob@example.com' },
  { id: 'U0VICTOR', email: 'victor@example.com' },
  { id: 'U0STRANGER', email: 'stranger@example.com' },
];

export interface SlackStack {
  stack: Stack;
  slack: FakeSlack;
  /** The cards posted for this approval, to the channel or to a DM (`D-<member>`). */
  cards(trackingId: string, channel?: string): SlackCall[];
  /** A member clicks a button of a posted card; its message answers at `response_url` `message`. */
  click(
    user: string,
    card: SlackCall,
    action: 'countersign_approve' | 'countersign_reject',
    message: string,
    forge?: { timestamp?: number; secret?: string },
  ): Promise<{ status: number; text: string }>;
  /** The member submits the reject modal the API opened for them (the last views.open), with a reason. */
  submitReject(user: string, reason: string): Promise<{ status: number; text: string }>;
  /** The `.eml` files the notifier wrote for this approval. */
  emails(trackingId: string): string[];
  close(): Promise<void>;
}

const shows = (call: SlackCall, text: string) => JSON.stringify(call.args.blocks ?? '').includes(text);

export async function startSlackStack(options: StackOptions = {}): Promise<SlackStack> {
  const slack = await startFakeSlack({ token: BOT_TOKEN, members });
  const stack = await startStack({
    approvers: slackApprovers,
    ...options,
    slack: {
      notifier: { botToken: BOT_TOKEN, channel: CHANNEL, apiUrl: slack.apiUrl },
      router: { botToken: BOT_TOKEN, signingSecret: SIGNING_SECRET, apiUrl: slack.apiUrl },
    },
  });
  let clicks = 0;
  return {
    stack,
    slack,
    cards: (trackingId, channel) =>
      slack.calls.filter(
        (c) =>
          c.method === 'chat.postMessage' &&
          (channel === undefined || c.args.channel === channel) &&
          shows(c, trackingId),
      ),
    click(user, card, action, message, forge) {
      const blocks = card.args.blocks as {
        type: string;
        elements?: { action_id?: string; value?: string }[];
      }[];
      const button = blocks
        .filter((b) => b.type === 'actions')
        .flatMap((b) => b.elements ?? [])
        .find((e) => e.action_id === action);
      if (!button) throw new Error(`the card has no ${action} button`);
      clicks++;
      return sendInteraction(
        stack.url,
        SIGNING_SECRET,
        {
          type: 'block_actions',
          user: { id: user, team_id: 'T0TEAM' },
          team: { id: 'T0TEAM' },
          api_app_id: 'A0APP',
          trigger_id: `trigger-${message}-${clicks}`,
          response_url: slack.responseUrl(message),
          channel: { id: card.args.channel },
          actions: [
            { type: 'button', action_id: action, value: button.value, action_ts: `${Date.now() / 1000}` },
          ],
        },
        forge,
      );
    },
    submitReject(user, reason) {
      const opened = slack.calls.filter((c) => c.method === 'views.open').at(-1);
      if (!opened) throw new Error('no modal was opened');
      const view = opened.args.view as { callback_id: string; private_metadata: string };
      return sendInteraction(stack.url, SIGNING_SECRET, {
        type: 'view_submission',
        user: { id: user, team_id: 'T0TEAM' },
        team: { id: 'T0TEAM' },
        view: {
          id: `V-${String(opened.args.trigger_id)}`,
          callback_id: view.callback_id,
          private_metadata: view.private_metadata,
          state: { values: { reason: { message: { type: 'plain_text_input', value: reason } } } },
        },
      });
    },
    emails(trackingId) {
      const outbox = path.join(stack.dataDir, 'outbox');
      try {
        return readdirSync(outbox).filter((name) => name.includes(trackingId));
      } catch {
        return [];
      }
    },
    async close() {
      await stack.close();
      await slack.close();
    },
  };
}
