import type { WebClient } from '@slack/web-api';
import type { ApprovalView, ApproverIdentity } from '../../protocol/index.js';
import type { EditNote, PostedMessage } from '../../workflows/activity-types.js';
import { approvalCard, type SlackMessage } from './card.js';
import { SlackRefused, refusedForGood } from './failures.js';
import type { SlackNotifierOptions } from './options.js';
import { slackWebClient } from './web-client.js';

/** One delivery, as the notifier runs each: on its own, marked sent or failed by its key. */
export type Deliver = (key: string, send: () => Promise<void>) => Promise<void>;

/** The Slack member an approver is: their `slackId`, else whom Slack knows by their email. */
async function memberOf(web: WebClient, approver: ApproverIdentity): Promise<string> {
  if (approver.slackId) return approver.slackId;
  const email = approver.email!;
  const found = await refusedForGood(`to look approver ${approver.id} up by email`, () =>
    web.users.lookupByEmail({ email }),
  );
  if (!found.user?.id) throw new SlackRefused(`Slack has no account for approver ${approver.id}`);
  return found.user.id;
}

/** Posts the message; answers its ids, to update it later. */
async function post(web: WebClient, channel: string, message: SlackMessage): Promise<PostedMessage> {
  const answer = await refusedForGood(`a message to ${channel}`, () =>
    web.chat.postMessage({ channel, ...message, unfurl_links: false, unfurl_media: false }),
  );
  if (!answer.ts) throw new Error(`Slack answered no timestamp for the message to ${channel}`);
  return { channel: answer.channel ?? channel, ts: answer.ts };
}

/**
 * Posts an approval's card to the channel and to each recipient's direct messages, each as its own
 * delivery (`slack:<round>:channel`, `slack:<round>:dm:<approver>`): a Slack outage is retried with
 * the notifier's activity and holds back no email, and what went out is not posted again. Each
 * message posted is reported by its ids, so the run can update it as the approval changes.
 */
export function slackPoster(options: SlackNotifierOptions, inboxUrl: (trackingId: string) => string) {
  const client = slackWebClient(options.botToken, options.apiUrl);
  return async function postApproval(
    approval: ApprovalView,
    recipients: ApproverIdentity[],
    done: (key: string) => boolean,
    round: string,
    deliver: Deliver,
    posted: (message: PostedMessage) => void,
    edit?: EditNote,
    reminder = false,
  ): Promise<void> {
    const card = approvalCard(approval, inboxUrl(approval.trackingId), edit, reminder);
    const channel = options.channel;
    const channelKey = `slack:${round}:channel`;
    if (channel && !done(channelKey))
      await deliver(channelKey, async () => posted(await post(await client(), channel, card)));
    if (options.directMessages === false) return;
    for (const approver of recipients) {
      const key = `slack:${round}:dm:${approver.id}`;
      if ((!approver.slackId && !approver.email) || done(key)) continue;
      await deliver(key, async () => {
        const web = await client();
        const member = await memberOf(web, approver);
        const opened = await refusedForGood(`a direct message to approver ${approver.id}`, () =>
          web.conversations.open({ users: member }),
        );
        if (!opened.channel?.id)
          throw new Error(`Slack opened no direct message for approver ${approver.id}`);
        posted(await post(web, opened.channel.id, card));
      });
    }
  };
}
