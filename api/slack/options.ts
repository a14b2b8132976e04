import type { ApproverIdentity } from '../../protocol/index.js';

/**
 * The Slack user who clicked a button: their member id, their workspace, and the email Slack has
 * for them (read with `users.info` when asked for, which needs `users:read.email`).
 *
 * @example
 * ```ts
 * import type { SlackUser } from 'countersign/api';
 *
 * // Only people of your own workspace, matched by the email Slack has for them.
 * async function emailOf(user: SlackUser): Promise<string | undefined> {
 *   return user.teamId === 'T0123ACME' ? user.email() : undefined;
 * }
 * ```
 */
export interface SlackUser {
  id: string;
  teamId?: string;
  email(): Promise<string | undefined>;
}

/**
 * Maps the Slack user who clicked to an approver, with the roles they hold now; undefined for
 * someone who is none (refused, and told so).
 *
 * @example
 * ```ts
 * import type { FindSlackApprover } from 'countersign/api';
 *
 * const findSlackApprover: FindSlackApprover = async (user) => {
 *   const person = await directory.byEmail((await user.email()) ?? '');
 *   return person && { id: person.email, roles: person.groups };
 * };
 * ```
 */
export type FindSlackApprover = (
  user: SlackUser,
) => ApproverIdentity | undefined | Promise<ApproverIdentity | undefined>;

/**
 * Slack for `countersignRouter`: the interactions endpoint (`POST <publicUrl>/slack/interactions`,
 * the Slack app's interactivity URL) takes the notifier's buttons. Every request is checked against
 * Slack's signature before anything is read; the clicker is mapped to an approver and decides
 * through the same rules as every channel.
 *
 * @example
 * ```ts
 * app.use(
 *   '/approvals',
 *   countersignRouter({
 *     ...apiOptions,
 *     slack: { botToken: process.env.SLACK_BOT_TOKEN!, signingSecret: process.env.SLACK_SIGNING_SECRET! },
 *   }),
 * );
 * ```
 */
export interface SlackRouterOptions {
  /** The Slack app's bot token (`xoxb-…`), the notifier's. */
  botToken: string;
  /** The Slack app's signing secret (Basic Information, App Credentials). */
  signingSecret: string;
  /** Slack's Web API, `https://slack.com/api/` unless a proxy stands in for it. */
  apiUrl?: string;
  /**
   * Who a Slack user is. By default, among `approvers`: the one whose `slackId` is theirs, else the
   * one (with no `slackId`) whose `email` is the email Slack has for them.
   */
  findApprover?: FindSlackApprover;
}
