import type { ApprovalView } from '../../protocol/index.js';
import type { ApprovalChange } from '../../workflows/activity-types.js';
import {
  SLACK_ACTIONS,
  approvalCard,
  button,
  changeLines,
  escaped,
  slackTime,
  verbatim,
  type SlackBlock,
  type SlackMessage,
} from './card.js';

type Replacement = Extract<ApprovalChange, { type: 'edited' | 'escalated' }>;

/** What replaced the proposal, by whom, through which channel and when; and that a new card follows. */
function whatHappened(change: Replacement): string {
  const follows = `These buttons no longer decide: revision ${change.revision} follows in a new message.`;
  if (change.type === 'edited')
    return `*Edited* by ${escaped(change.by.actor)} (${change.by.channel}), ${slackTime(change.at)}. ${follows}`;
  const roles = change.approvers.map(escaped).join(' or ');
  return `*Escalated*, ${slackTime(change.at)}: nobody decided before the deadline, and it is now for ${roles}. ${follows}`;
}

/**
 * A card whose proposal an edit or an escalation replaced: what it showed stays, its buttons give
 * way to what happened (an edit's changes, from what to what), and the inbox.
 */
export function replacedCard(shown: ApprovalView, inbox: string, change: Replacement): SlackMessage {
  const card = approvalCard(shown, inbox);
  // The buttons come last, with the line about them under them.
  const buttons = card.blocks.findIndex((block) => block.type === 'actions');
  const kept = buttons === -1 ? card.blocks : card.blocks.slice(0, buttons);
  const changes = change.type === 'edited' ? changeLines(change.diff) : [];
  const blocks: SlackBlock[] = [
    ...kept,
    { type: 'section', text: { type: 'mrkdwn', text: whatHappened(change) } },
    ...(changes.length > 0 ? [verbatim('Changed', changes.join('\n'))] : []),
    {
      type: 'actions',
      elements: [{ ...button('Open in the inbox', SLACK_ACTIONS.inbox, shown.trackingId), url: inbox }],
    },
  ];
  const how = change.type === 'edited' ? 'Edited' : 'Escalated';
  return { text: `${how}: ${card.text}`, blocks };
}
