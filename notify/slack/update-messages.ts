import type { MessagesUpdate } from '../../workflows/activity-types.js';
import { settledCard } from './card.js';
import { refusedForGood } from './failures.js';
import type { SlackNotifierOptions } from './options.js';
import type { Deliver } from './post-approval.js';
import { replacedCard } from './replaced-card.js';
import { slackWebClient } from './web-client.js';

/**
 * Updates the cards posted for an approval (`chat.update`) to say what became of it: how it ended,
 * by whom and through which channel, or that an edit or an escalation replaced it. Each card is its
 * own delivery (`slack:update:<channel>:<ts>`): a Slack outage is retried with the activity, and a
 * card Slack no longer has is given up on.
 */
export function slackUpdater(options: SlackNotifierOptions, inboxUrl: (trackingId: string) => string) {
  const client = slackWebClient(options.botToken, options.apiUrl);
  return async function updateCards(
    update: MessagesUpdate,
    done: (key: string) => boolean,
    deliver: Deliver,
  ): Promise<void> {
    const { approval, change } = update;
    const inbox = inboxUrl(approval.trackingId);
    const message =
      change.type === 'settled'
        ? settledCard(
            approval,
            inbox,
            change.by ? { approver: change.by.actor, channel: change.by.channel } : undefined,
          )
        : replacedCard(approval, inbox, change);
    for (const { channel, ts } of update.messages) {
      const key = `slack:update:${channel}:${ts}`;
      if (done(key)) continue;
      await deliver(key, async () => {
        const web = await client();
        await refusedForGood(`an update of a message in ${channel}`, () =>
          web.chat.update({ channel, ts, ...message }),
        );
      });
    }
  };
}
