/**
 * Slack for `createNotifier`: each approval is posted to a channel and/or to each approver it needs
 * as a direct message, with Approve and Reject buttons (the router's `slack` option takes the
 * clicks). Needs `@slack/web-api`, installed beside countersign.
 *
 * @example
 * ```ts
 * import { createNotifier } from 'countersign/worker';
 *
 * const notifier = createNotifier({
 *   ...notifierOptions,
 *   slack: { botToken: process.env.SLACK_BOT_TOKEN!, channel: 'C0123APPROVALS' },
 * });
 * ```
 */
export interface SlackNotifierOptions {
  /** The Slack app's bot token (`xoxb-…`): scopes `chat:write`, `im:write`, `users:read`, `users:read.email`. */
  botToken: string;
  /** A channel id (`C…`) to post every approval in; invite the app to it. */
  channel?: string;
  /**
   * A direct message to each approver who may decide and has not yet (default true). An approver
   * is found by their `slackId`, else by their `email` (`users.lookupByEmail`); one with no Slack
   * account is skipped, and still reached by email.
   */
  directMessages?: boolean;
  /** Slack's Web API, `https://slack.com/api/` unless a proxy stands in for it. */
  apiUrl?: string;
}
