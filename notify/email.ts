import {
  requirementLines,
  visibleText,
  type ApprovalView,
  type ApproverIdentity,
} from '../protocol/index.js';
import { escapeHtml } from './html.js';
import { OUTCOME_ANSWER, OUTCOME_DEADLINE, OUTCOME_WHY, attemptFacts } from './outcome-wording.js';

export interface EmailLinks {
  approve?: string;
  reject?: string;
  inbox: string;
  /** A reminder before the deadline: its subject and first line say so, and when the deadline is. */
  reminder?: boolean;
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

/**
 * Text from the run (its arguments, the description and question they fill in) as the email shows
 * it: bidirectional overrides, control and invisible characters are marked (`\u202e`) rather than
 * obeyed, so they cannot reorder or hide what the approver reads; and a field's own line breaks are
 * marked too, so it cannot forge the lines after it (an "Approve:" link of its own).
 */
const shown = (text: string) => visibleText(text);
/** JSON laid out on several lines: its line breaks are its layout, its strings are escaped already. */
const shownJson = (value: unknown) => visibleText(JSON.stringify(value, null, 2), { keepLines: true });

function proposal(approval: ApprovalView): { label: string; body: string }[] {
  const parts: { label: string; body: string }[] = [];
  if (approval.question) parts.push({ label: 'Question', body: shown(approval.question) });
  if (approval.plan) {
    const steps = approval.plan.map(
      (step, i) =>
        `${i + 1}. ${shown(step.tool)} ${shownJson(step.args)}${step.addedBy ? ` (added by ${shown(step.addedBy)})` : ''}`,
    );
    parts.push({ label: 'Plan', body: steps.join('\n') });
  } else if (approval.kind === 'outcome') {
    parts.push({ label: 'Arguments it ran with', body: shownJson(approval.args) });
    // One fact a line: the step and the reason come from the tool, so their own breaks are marked.
    const facts = attemptFacts(approval.attempt).map(([k, v]) => `${k}: ${shown(v)}`);
    parts.push({ label: 'The attempt', body: facts.join('\n') });
  } else if (approval.kind === 'secret') {
    const secret = approval.secret;
    parts.push({
      label: 'Secret needed',
      body: secret
        ? `${shown(secret.label)} (${shown(secret.name)}), for ${shown(approval.tool)}`
        : shown(approval.tool),
    });
    // What it unlocks: the call it is for (one the model asked for by name has none).
    if (Object.keys(approval.args).length > 0)
      parts.push({ label: `Arguments of the ${shown(approval.tool)} call`, body: shownJson(approval.args) });
  } else if (approval.kind !== 'question') {
    parts.push({ label: 'Arguments', body: shownJson(approval.args) });
  }
  if (approval.result !== undefined)
    parts.push({ label: 'Result for review', body: shownJson(approval.result) });
  return parts;
}

/** What the agent wants, in the headline of every channel's message (email, Slack). */
export const KIND_TITLE: Record<ApprovalView['kind'], string> = {
  call: 'wants to call',
  plan: 'proposes a plan starting with',
  result: 'wants you to review the result of',
  question: 'asks you a question through',
  outcome: 'does not know whether this call happened:',
  secret: 'needs a secret from you for',
};

/** Why a person is asked, said plainly. */
const SECRET_WHY =
  'The tool cannot run without it. What you supply goes to the tool alone: nobody, the model included, sees it again.';

interface Link {
  label: string;
  href: string;
  colour: string;
}

/**
 * How a secret is supplied: never through an email (a link would put its answer in a URL, a
 * mail scanner or a forwarded message), always in the inbox or the CLI, which reads it unechoed.
 */
const SECRET_HOW = [
  'A secret is never supplied through an email link. Supply it in the inbox (link below),',
  'or from a terminal, where what you type is not shown:',
];

/**
 * The links, in the words of the approval's kind. An outcome's "it happened" needs its result,
 * which no link can carry: that answer is given in the inbox. A secret has no decision links at
 * all, whatever it was given: only the inbox's.
 */
function linksOf(approval: ApprovalView, links: EmailLinks): Link[] {
  if (approval.kind === 'secret') return [{ label: 'Open in the inbox', href: links.inbox, colour: '#444' }];
  const outcome = approval.kind === 'outcome';
  const list: Link[] = [];
  if (links.approve)
    list.push({
      label: outcome ? OUTCOME_ANSWER.approve : 'Approve',
      href: links.approve,
      colour: '#1a7f37',
    });
  if (links.reject)
    list.push({ label: outcome ? OUTCOME_ANSWER.reject : 'Reject', href: links.reject, colour: '#b42318' });
  list.push({
    label: outcome ? `${OUTCOME_ANSWER.respond}: answer in the inbox with its result` : 'Open in the inbox',
    href: links.inbox,
    colour: '#444',
  });
  return list;
}

/** One message per approver: its links are signed for that approver alone. */
export function renderApprovalEmail(
  approval: ApprovalView,
  approver: ApproverIdentity,
  links: EmailLinks,
): RenderedEmail {
  const outcome = approval.kind === 'outcome';
  const secret = approval.kind === 'secret';
  const headline = shown(`Agent ${approval.agent} ${KIND_TITLE[approval.kind]} ${approval.tool}`);
  const due = `Reminder: still waiting for you, due by ${approval.deadline}`;
  const subject = `[Countersign] ${links.reminder ? `Reminder (due by ${approval.deadline}): ` : ''}${approval.escalated ? 'Escalated: ' : ''}${headline}`;
  const description = shown(approval.description);
  const facts: [string, string][] = [
    ['Tracking id', approval.trackingId],
    ['Run', approval.runId],
    ['Requested by', shown(approval.requester ?? 'unknown')],
    [outcome ? 'Answer before' : secret ? 'Supply before' : 'Decide before', approval.deadline],
  ];
  for (const line of requirementLines(approval)) facts.push(['Needs', shown(line)]);
  const explained = outcome ? [`${OUTCOME_WHY} ${OUTCOME_DEADLINE}`] : secret ? [SECRET_WHY] : [];
  // The command names the approval by its id alone: nothing of the run's text goes in it.
  const command = `countersign respond ${approval.trackingId}`;
  const footer = secret
    ? 'Nobody supplying it by the deadline means the call goes without it.'
    : 'Each link asks you to confirm before anything happens, and works once.';
  const parts = proposal(approval);
  const actions = linksOf(approval, links);

  const text = [
    `Hello ${approver.name ?? approver.id},`,
    '',
    ...(links.reminder ? [due + '.', ''] : []),
    headline + '.',
    description,
    ...explained,
    '',
    ...facts.map(([k, v]) => `${k}: ${v}`),
    '',
    ...parts.flatMap((p) => [`${p.label}:`, p.body, '']),
    // "Label: link" as before; an outcome's labels have colons of their own, so its links go below them.
    ...(outcome
      ? ['What happened?', ...actions.flatMap((a) => [`${a.label}:`, `  ${a.href}`])]
      : secret
        ? [...SECRET_HOW, `  ${command}`, '', ...actions.map((a) => `${a.label}: ${a.href}`)]
        : actions.map((a) => `${a.label}: ${a.href}`)),
    '',
    footer,
  ].join('\n');

  const button = ({ href, label, colour }: Link) =>
    `<a href="${escapeHtml(href)}" style="display:inline-block;padding:10px 18px;margin:0 8px 8px 0;border-radius:6px;background:${colour};color:#fff;text-decoration:none;font-weight:600">${escapeHtml(label)}</a>`;
  const html = `<!doctype html>
<html><body style="font-family:system-ui,sans-serif;color:#1c1c1c;max-width:640px">
<p>Hello ${escapeHtml(approver.name ?? approver.id)},</p>
${links.reminder ? `<p><strong>${escapeHtml(due)}.</strong></p>\n` : ''}<h2 style="font-size:18px">${escapeHtml(headline)}</h2>
<p>${escapeHtml(description)}</p>
${explained.map((line) => `<p><strong>${escapeHtml(line)}</strong></p>`).join('\n')}
<table style="border-collapse:collapse">${facts
    .map(
      ([k, v]) =>
        `<tr><th style="text-align:left;padding-right:12px">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`,
    )
    .join('')}</table>
${parts
  .map(
    (p) =>
      `<h3 style="font-size:15px">${escapeHtml(p.label)}</h3><pre style="background:#f4f4f4;padding:8px;white-space:pre-wrap">${escapeHtml(p.body)}</pre>`,
  )
  .join('\n')}
${outcome ? '<h3 style="font-size:15px">What happened?</h3>\n' : ''}${secret ? `<p>${escapeHtml(SECRET_HOW.join(' '))}</p>\n<pre style="background:#f4f4f4;padding:8px">${escapeHtml(command)}</pre>\n` : ''}<p>${actions.map(button).join('')}</p>
<p style="color:#666;font-size:13px">${escapeHtml(footer)}</p>
</body></html>`;
  return { subject, text, html };
}
