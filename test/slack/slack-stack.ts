import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { ApproverConfig } from '../../protocol/index.js';
import { testApprovers, tokens, toolRuns } from '../support/api-agents.js';
import { call, calls, say } from '../support/fake-model.js';
import { startStack, type Stack, type StackOptions } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
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
  /** A run (victor's) with one gated call, and that call's card in the channel. */
  gated(
    agent: string,
    input: string,
    tool: string,
    args: Record<string, unknown>,
  ): Promise<{ runId: string; trackingId: string; card: SlackCall }>;
  /** The only answer Slack got for the message: its text, said to the clicker alone. */
  toldOnly(message: string): Promise<string>;
  /** Nothing happened to the approval: still pending, on this revision, with these sign-offs; no tool ran. */
  unchanged(runId: string, trackingId: string, revision: number, signers: string[]): Promise<void>;
  /** The cards posted for this approval, to the channel or to a DM (`D-<member>`). */
  cards(trackingId: string, channel?: string): SlackCall[];
  /** A member clicks a button of a posted card; its message answers at `response_url` `message`. */
  click(
    user: string,
    card: SlackCall,
    action: 'countersign_approve' | 'countersign_reject' | 'countersign_edit',
    message: string,
    forge?: { timestamp?: number; secret?: string },
  ): Promise<{ status: number; text: string }>;
  /** The member submits the reject modal the API opened for them (the last views.open), with a reason. */
  submitReject(user: string, reason: string): Promise<{ status: number; text: string }>;
  /**
   * The member submits the last modal the API opened, its inputs' state as Slack sends it
   * (`{ <block_id>: { <action_id>: { value } or { selected_option } } }`).
   */
  submitModal(user: string, values: Record<string, unknown>): Promise<{ status: number; text: string }>;
  /** The `.eml` files the notifier wrote for this approval. */
  emails(trackingId: string): string[];
  close(): Promise<void>;
}

const shows = (call: SlackCall, text: string) => JSON.stringify(call.args.blocks ?? '').includes(text);

/** Every text of a posted message, as a reader sees it. */
export function textOf(call: SlackCall): string {
  const texts: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object')
      for (const [key, value] of Object.entries(node)) {
        if (key === 'text' && typeof value === 'string') texts.push(value);
        else walk(value);
      }
  };
  walk(call.args.blocks);
  return texts.join('\n');
}

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
  const submitModal: SlackStack['submitModal'] = (user, values) => {
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
        state: { values },
      },
    });
  };
  const cards: SlackStack['cards'] = (trackingId, channel) =>
    slack.calls.filter(
      (c) =>
        c.method === 'chat.postMessage' &&
        (channel === undefined || c.args.channel === channel) &&
        shows(c, trackingId),
    );
  return {
    stack,
    slack,
    async gated(agent, input, tool, args) {
      const runId = await stack.startRun(agent, input, tokens.victor, calls(call(tool, args)), say('Done.'));
      const [pending] = await stack.waitForPending(runId);
      const trackingId = pending!.trackingId;
      const card = await waitFor(async () => cards(trackingId, CHANNEL)[0], 'the card');
      return { runId, trackingId, card };
    },
    async toldOnly(message) {
      const [answer] = await slack.waitForResponses(message);
      assert.equal(slack.responses.filter((r) => r.message === message).length, 1);
      assert.equal(answer!.body.response_type, 'ephemeral');
      assert.equal(answer!.body.replace_original, false);
      return String(answer!.body.text);
    },
    async unchanged(runId, trackingId, revision, signers) {
      const state = await stack.state(runId);
      const approval = state.approvals.find((a) => a.trackingId === trackingId)!;
      assert.equal(approval.status, 'pending');
      assert.equal(approval.revision, revision);
      assert.deepEqual(
        approval.approvals.map((a) => a.approver),
        signers,
      );
      assert.equal(toolRuns.filter((r) => r.runId === runId).length, 0);
    },
    cards,
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
    submitReject: (user, reason) =>
      submitModal(user, { reason: { message: { type: 'plain_text_input', value: reason } } }),
    submitModal,
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
