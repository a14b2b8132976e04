import type { ChatPostMessageArguments } from '@slack/web-api';
import { z } from 'zod';
import {
  requirementLines,
  visibleText,
  type ApprovalView,
  type ArgChange,
  type Channel,
} from '../../protocol/index.js';
import type { EditNote } from '../../workflows/activity-types.js';
import { KIND_TITLE } from '../email.js';
import {
  OUTCOME_ANSWER,
  OUTCOME_DEADLINE,
  OUTCOME_WHY,
  SETTLED_HOW,
  attemptFacts,
} from '../outcome-wording.js';

export type SlackBlock = Extract<ChatPostMessageArguments, { blocks: unknown[] }>['blocks'][number];

/** A message as `chat.postMessage` and a `response_url` take it. */
export interface SlackMessage {
  /** The notification's text, and what clients without Block Kit show. */
  text: string;
  blocks: SlackBlock[];
}

/** The action ids of the card's buttons: the interactions endpoint goes by them. */
export const SLACK_ACTIONS = {
  approve: 'countersign_approve',
  reject: 'countersign_reject',
  edit: 'countersign_edit',
  inbox: 'countersign_inbox',
} as const;

/**
 * What a decision button carries: the approval, and the revision of the proposal its message
 * showed. Slack hands back the value it stored with the message; a click can name no other.
 */
export const ButtonValue = z.strictObject({
  trackingId: z.string().min(1).max(200),
  revision: z.number().int().min(1),
});
export type ButtonValue = z.infer<typeof ButtonValue>;

/** Slack's limits: a section's text, a header's, a button's label. */
const SECTION_MAX = 3000;
const HEADER_MAX = 150;
const LABEL_MAX = 75;
const CUT_NOTE = '\n… (cut here: the inbox shows all of it)';

function cut(text: string, max: number, note = '…'): string {
  return text.length <= max ? text : `${text.slice(0, max - note.length)}${note}`;
}

/** Text from the run as it is: nothing in it is formatted, linked or mentions anyone. */
function plain(text: string, max = SECTION_MAX) {
  return { type: 'plain_text' as const, text: cut(visibleText(text), max), emoji: false };
}

/**
 * Text from the run inside Slack's markup: its three control characters escaped, so no link,
 * mention or `@channel` can be forged; invisible characters marked, as the email marks them.
 */
export function escaped(text: string): string {
  return visibleText(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const markup = (text: string) => ({ type: 'mrkdwn' as const, text: cut(text, SECTION_MAX) });

/** A labelled block of text shown exactly (rich text: Slack applies no markup inside it). */
export function verbatim(label: string, body: string): SlackBlock {
  return {
    type: 'rich_text',
    elements: [
      { type: 'rich_text_section', elements: [{ type: 'text', text: label, style: { bold: true } }] },
      {
        type: 'rich_text_preformatted',
        elements: [
          { type: 'text', text: cut(visibleText(body, { keepLines: true }), SECTION_MAX, CUT_NOTE) },
        ],
      },
    ],
  };
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** A time as Slack shows it in each reader's own time zone, with the ISO time where it cannot. */
export function slackTime(iso: string): string {
  const seconds = Math.floor(Date.parse(iso) / 1000);
  return Number.isFinite(seconds) ? `<!date^${seconds}^{date_short_pretty} at {time}|${iso}>` : iso;
}

function headline(approval: ApprovalView): string {
  return `${approval.escalated ? 'Escalated: ' : ''}Agent ${approval.agent} ${KIND_TITLE[approval.kind]} ${approval.tool}`;
}

/** What is proposed, as the email shows it: the arguments, the plan, the result, the attempt. */
function proposal(approval: ApprovalView): SlackBlock[] {
  const blocks: SlackBlock[] = [];
  if (approval.question) blocks.push(verbatim('Question', approval.question));
  if (approval.plan) {
    const steps = approval.plan.map(
      (step, i) =>
        `${i + 1}. ${step.tool} ${JSON.stringify(step.args)}${step.addedBy ? ` (added by ${step.addedBy})` : ''}`,
    );
    blocks.push(verbatim('Plan', steps.join('\n')));
  } else if (approval.kind === 'outcome') {
    blocks.push(verbatim('Arguments it ran with', json(approval.args)));
    const facts = attemptFacts(approval.attempt).map(([k, v]) => `${k}: ${v}`);
    blocks.push(verbatim('The attempt', facts.join('\n')));
  } else if (approval.kind === 'secret') {
    if (Object.keys(approval.args).length > 0)
      blocks.push(verbatim(`Arguments of the ${approval.tool} call`, json(approval.args)));
  } else if (approval.kind !== 'question') {
    blocks.push(verbatim('Arguments', json(approval.args)));
  }
  if (approval.result !== undefined) blocks.push(verbatim('Result for review', json(approval.result)));
  return blocks;
}

/** Why a person is asked, where the kind needs saying. A secret is never taken in Slack. */
function explanation(approval: ApprovalView): string | undefined {
  if (approval.kind === 'outcome') return `${OUTCOME_WHY} ${OUTCOME_DEADLINE}`;
  if (approval.kind !== 'secret') return undefined;
  const secret = approval.secret;
  const what = secret ? `${secret.label} (${secret.name}), for ${approval.tool}` : approval.tool;
  return `Secret needed: ${what}. A secret is never supplied in Slack: supply it in the inbox, or from a terminal with "countersign respond ${approval.trackingId}", where what you type is not shown.`;
}

export function button(label: string, actionId: string, value: string, style?: 'primary' | 'danger') {
  return {
    type: 'button' as const,
    text: plain(label, LABEL_MAX),
    action_id: actionId,
    value,
    ...(style ? { style } : {}),
  };
}

/**
 * The buttons: Approve, Edit (a call's arguments) and Reject where the policy allows them (an
 * outcome's in its own words), bound to this revision, and the inbox for everything else (a plan's
 * edit, a result, a secret).
 */
function actions(approval: ApprovalView, inbox: string): SlackBlock {
  const outcome = approval.kind === 'outcome';
  const decides = approval.kind !== 'secret';
  const value = JSON.stringify({
    trackingId: approval.trackingId,
    revision: approval.revision,
  } satisfies ButtonValue);
  const elements = [];
  if (decides && approval.allowedDecisions.includes('approve'))
    elements.push(
      button(outcome ? OUTCOME_ANSWER.approve : 'Approve', SLACK_ACTIONS.approve, value, 'primary'),
    );
  // Its modal is built from the call's arguments: a plan or a result is edited in the inbox.
  if (approval.kind === 'call' && approval.allowedDecisions.includes('edit'))
    elements.push(button('Edit', SLACK_ACTIONS.edit, value));
  if (decides && approval.allowedDecisions.includes('reject'))
    elements.push(button(outcome ? OUTCOME_ANSWER.reject : 'Reject', SLACK_ACTIONS.reject, value, 'danger'));
  const open = outcome
    ? `${OUTCOME_ANSWER.respond}: answer in the inbox`
    : approval.kind === 'secret'
      ? 'Supply it in the inbox'
      : 'Open in the inbox';
  elements.push({ ...button(open, SLACK_ACTIONS.inbox, approval.trackingId), url: inbox });
  return { type: 'actions', block_id: `countersign_r${approval.revision}`, elements };
}

/** Who and where, as a fact table. */
function facts(approval: ApprovalView): SlackBlock {
  const by =
    approval.kind === 'outcome'
      ? 'Answer before'
      : approval.kind === 'secret'
        ? 'Supply before'
        : 'Decide before';
  return {
    type: 'section',
    fields: [
      markup(`*Requested by*\n${escaped(approval.requester ?? 'unknown')}`),
      markup(`*${by}*\n${slackTime(approval.deadline)}`),
      markup(`*Tracking id*\n${escaped(approval.trackingId)}`),
      markup(`*Revision*\n${approval.revision}`),
    ],
  };
}

/** Each change on a line: where, from what, to what. */
export function changeLines(diff: ArgChange[]): string[] {
  const value = (v: unknown) => (v === undefined ? '(none)' : JSON.stringify(v));
  return diff.map((change) => `${change.path || '/'}: ${value(change.before)} → ${value(change.after)}`);
}

/** The edit that made this revision: who, through which channel, and what changed from what to what. */
function editedFrom(edit: EditNote): SlackBlock[] {
  const by = `${escaped(edit.by.actor)} (${edit.by.channel})`;
  const changes = changeLines(edit.diff);
  return [
    {
      type: 'context',
      elements: [markup(`*Edited* by ${by}: revision ${edit.from} changed as follows`)],
    },
    ...(changes.length > 0 ? [verbatim('Changed', changes.join('\n'))] : []),
  ];
}

/**
 * The message for a pending approval: what is asked and why, what is still needed (in the rule
 * words every channel uses), what is proposed, who asked, the deadline, and the buttons.
 */
export function approvalCard(
  approval: ApprovalView,
  inbox: string,
  edit?: EditNote,
  /** A reminder before the deadline: said in its header and first line. */
  reminder = false,
): SlackMessage {
  const why = explanation(approval);
  const needs = requirementLines(approval).map((line) => `• ${escaped(line)}`);
  const signed = approval.approvals.map((s) => `${escaped(s.approver)} (${s.channel})`);
  const title = `${reminder ? 'Reminder: ' : ''}${headline(approval)}`;
  const blocks: SlackBlock[] = [
    { type: 'header', text: plain(title, HEADER_MAX) },
    ...(reminder
      ? [
          {
            type: 'section' as const,
            text: markup(`*Reminder:* still waiting for a decision, due by ${slackTime(approval.deadline)}`),
          },
        ]
      : []),
    { type: 'section', text: plain(approval.description) },
    ...(why ? [{ type: 'section' as const, text: plain(why) }] : []),
    facts(approval),
    { type: 'section', text: markup(`*Needs*\n${needs.join('\n')}`) },
    ...(signed.length > 0
      ? [{ type: 'context' as const, elements: [markup(`Signed so far: ${signed.join(', ')}`)] }]
      : []),
    ...(edit ? editedFrom(edit) : []),
    ...proposal(approval),
    actions(approval, inbox),
    {
      type: 'context',
      elements: [
        markup(
          approval.kind === 'secret'
            ? 'Nobody supplying it by the deadline means the call goes without it.'
            : `The buttons decide as you, with the roles you hold now, on revision ${approval.revision} of this proposal: if it changes, they are refused and the inbox shows the new one.`,
        ),
      ],
    },
  ];
  return { text: cut(escaped(`${title}: ${approval.description}`), SECTION_MAX), blocks };
}

/**
 * The message once the approval is settled: how it ended, by whom and through which channel, the
 * reason given and an edit's changes; no buttons are left to press.
 */
export function settledCard(
  approval: ApprovalView,
  inbox: string,
  decider?: { approver: string; channel: Channel },
): SlackMessage {
  const outcome = approval.outcome;
  const channelOf = (id: string) =>
    approval.approvals.find((s) => s.approver === id)?.channel ??
    (decider?.approver === id ? decider.channel : undefined);
  const by = (outcome?.by ?? []).map((id) => {
    const channel = channelOf(id);
    return `${escaped(id)}${channel ? ` (${channel})` : ''}`;
  });
  const status = `*${SETTLED_HOW[approval.status]}*${by.length > 0 ? ` by ${by.join(', ')}` : ''}`;
  const diff = changeLines(outcome?.diff ?? []);
  const blocks: SlackBlock[] = [
    { type: 'header', text: plain(headline(approval), HEADER_MAX) },
    { type: 'section', text: plain(approval.description) },
    { type: 'section', text: markup(`${status}${outcome ? `, ${slackTime(outcome.at)}` : ''}`) },
    ...(outcome?.message ? [verbatim('Reason', outcome.message)] : []),
    ...(diff.length > 0 ? [verbatim('Changed', diff.join('\n'))] : []),
    {
      type: 'actions',
      elements: [{ ...button('Open in the inbox', SLACK_ACTIONS.inbox, approval.trackingId), url: inbox }],
    },
  ];
  return {
    text: cut(escaped(`${SETTLED_HOW[approval.status]}: ${headline(approval)}`), SECTION_MAX),
    blocks,
  };
}
