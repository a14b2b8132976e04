import {
  requirementLines,
  visibleText,
  type ApprovalView,
  type ApproverIdentity,
} from '../protocol/index.js';
import { escapeHtml } from './html.js';

export interface EmailLinks {
  approve?: string;
  reject?: string;
  inbox: string;
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
    const steps = approval.plan.map((step, i) => `${i + 1}. ${shown(step.tool)} ${shownJson(step.args)}`);
    parts.push({ label: 'Plan', body: steps.join('\n') });
  } else if (approval.kind !== 'question') {
    parts.push({ label: 'Arguments', body: shownJson(approval.args) });
  }
  if (approval.result !== undefined)
    parts.push({ label: 'Result for review', body: shownJson(approval.result) });
  return parts;
}

const KIND_TITLE: Record<ApprovalView['kind'], string> = {
  call: 'wants to call',
  plan: 'proposes a plan starting with',
  result: 'wants you to review the result of',
  question: 'asks you a question through',
};

/** One message per approver: its links are signed for that approver alone. */
export function renderApprovalEmail(
  approval: ApprovalView,
  approver: ApproverIdentity,
  links: EmailLinks,
): RenderedEmail {
  const headline = shown(`Agent ${approval.agent} ${KIND_TITLE[approval.kind]} ${approval.tool}`);
  const subject = `[Countersign] ${approval.escalated ? 'Escalated: ' : ''}${headline}`;
  const description = shown(approval.description);
  const facts: [string, string][] = [
    ['Tracking id', approval.trackingId],
    ['Run', approval.runId],
    ['Requested by', shown(approval.requester ?? 'unknown')],
    ['Decide before', approval.deadline],
  ];
  for (const line of requirementLines(approval)) facts.push(['Needs', shown(line)]);
  const parts = proposal(approval);

  const text = [
    `Hello ${approver.name ?? approver.id},`,
    '',
    headline + '.',
    description,
    '',
    ...facts.map(([k, v]) => `${k}: ${v}`),
    '',
    ...parts.flatMap((p) => [`${p.label}:`, p.body, '']),
    ...(links.approve ? [`Approve: ${links.approve}`] : []),
    ...(links.reject ? [`Reject: ${links.reject}`] : []),
    `Open in the inbox: ${links.inbox}`,
    '',
    'Each link asks you to confirm before anything happens, and works once.',
  ].join('\n');

  const button = (href: string, label: string, colour: string) =>
    `<a href="${escapeHtml(href)}" style="display:inline-block;padding:10px 18px;margin-right:8px;border-radius:6px;background:${colour};color:#fff;text-decoration:none;font-weight:600">${escapeHtml(label)}</a>`;
  const html = `<!doctype html>
<html><body style="font-family:system-ui,sans-serif;color:#1c1c1c;max-width:640px">
<p>Hello ${escapeHtml(approver.name ?? approver.id)},</p>
<h2 style="font-size:18px">${escapeHtml(headline)}</h2>
<p>${escapeHtml(description)}</p>
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
<p>${links.approve ? button(links.approve, 'Approve', '#1a7f37') : ''}${links.reject ? button(links.reject, 'Reject', '#b42318') : ''}${button(links.inbox, 'Open in inbox', '#444')}</p>
<p style="color:#666;font-size:13px">Each link asks you to confirm before anything happens, and works once.</p>
</body></html>`;
  return { subject, text, html };
}
