import {
  requirementLines,
  visibleText,
  type ApprovalView,
  type Channel,
  type RunEvent,
} from '../protocol/index.js';
import { escapeHtml } from '../notify/html.js';
import type { LinkAction } from '../notify/links.js';
import {
  OUTCOME_ANSWER,
  OUTCOME_DEADLINE,
  OUTCOME_EFFECT,
  OUTCOME_WHY,
  SETTLED_HOW,
  attemptFacts,
} from '../notify/outcome-wording.js';
import { LOCAL_TIME_SCRIPT, timeHtml } from './page-time.js';

/**
 * Text as these pages show it: HTML-escaped, and with bidirectional controls, control and invisible
 * characters marked (`\u202e`) as the email, the inbox and the CLI mark them (`visibleText`): this
 * is where the approver clicks Approve, so nothing from the run may reorder or hide what they read.
 */
const shown = (text: string) => escapeHtml(visibleText(text));
/** JSON laid out on several lines: its line breaks are its layout, its strings are marked. */
const shownJson = (value: unknown) =>
  escapeHtml(visibleText(JSON.stringify(value, null, 2), { keepLines: true }));

/**
 * Pages for email links: server-rendered, every value escaped and marked. Their one script is fixed
 * text that shows times in the reader's zone (page-time.ts); they read right without it.
 */
function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${shown(title)} · Countersign</title>
<style>
body{font-family:system-ui,sans-serif;max-width:640px;margin:2rem auto;padding:0 1rem;color:#1c1c1c;line-height:1.45}
pre{background:#f4f4f4;padding:.75rem;white-space:pre-wrap;word-break:break-word;border-radius:6px}
h2{font-size:1.05rem;margin:1rem 0 .25rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
textarea{width:100%;min-height:6rem;font:inherit;box-sizing:border-box}
button{font:inherit;font-weight:600;padding:.6rem 1.2rem;border:0;border-radius:6px;color:#fff;cursor:pointer;margin-top:1rem}
.approve{background:#1a7f37}.reject{background:#b42318}
.note{color:#555}
</style></head><body><main>
<h1>${shown(title)}</h1>
${body}
</main><script>${LOCAL_TIME_SCRIPT}</script></body></html>`;
}

export function messagePage(title: string, message: string, inbox?: string): string {
  return page(
    title,
    `<p>${shown(message)}</p>${inbox ? `<p><a href="${escapeHtml(inbox)}">Open the inbox</a></p>` : ''}`,
  );
}

/**
 * The page for a decision link to an approval of kind `secret`. No email carries one; a link made
 * for it anyway (signed by hand, or for another approval's number) decides nothing: a secret is
 * supplied, or refused, in the inbox or the CLI alone.
 */
export function secretLinkPage(
  approval: Pick<ApprovalView, 'trackingId' | 'tool' | 'secret'>,
  inbox: string,
): string {
  const what = approval.secret ? ` (${approval.secret.label})` : '';
  return messagePage(
    'Not through an email link',
    `This approval asks for a secret${what} for ${approval.tool}. A secret is never supplied, nor refused, ` +
      `through an email link: open it in the inbox, or run \`countersign respond ${approval.trackingId}\`. ` +
      'Nothing was changed.',
    inbox,
  );
}

/**
 * Who must sign, how much of it is met, and the policy's rule that asked (`requirementLines`, as
 * the email and the CLI say it); and who has signed so far.
 */
function requirementsHtml(approval: ApprovalView): string {
  const lines = requirementLines(approval).map((line) => `<li>${shown(line)}</li>`);
  const signed = approval.approvals.map((s) => s.approver).join(', ');
  return `<h2>Who must sign</h2>
<ul>${lines.join('')}</ul>${signed ? `\n<p>Signed so far by ${shown(signed)}.</p>` : ''}`;
}

export function confirmPage(
  approval: ApprovalView,
  action: LinkAction,
  approverName: string,
  inbox: string,
): string {
  if (approval.kind === 'outcome') return outcomeConfirmPage(approval, action, approverName, inbox);
  const verb = action === 'approve' ? 'Approve' : 'Reject';
  const details = approval.plan
    ? approval.plan.map((s, i) => `${i + 1}. ${shown(s.tool)} ${shownJson(s.args)}`).join('\n')
    : shownJson(approval.args);
  const reason =
    action === 'reject'
      ? `<label for="message">Reason (the agent is told)</label><textarea id="message" name="message" maxlength="4000"></textarea>`
      : '';
  return page(
    `${verb} ${approval.tool}?`,
    `<p>Agent <strong>${shown(approval.agent)}</strong> asks to run <strong>${shown(approval.tool)}</strong>.</p>
<p>${shown(approval.description)}</p>
<pre>${details}</pre>
${requirementsHtml(approval)}
<p class="note">Signed in by this link as ${shown(approverName)}. Nothing has happened yet: confirm below. Decide before ${timeHtml(approval.deadline)}.</p>
<form method="post">${reason}<button type="submit" class="${action}">${verb}</button></form>
<p><a href="${escapeHtml(inbox)}">Open in the inbox instead</a> (to edit the arguments, for instance).</p>`,
  );
}

/** Nobody knows whether the call happened: the link answers "it did not, run it again" or "it failed". */
function outcomeConfirmPage(
  approval: ApprovalView,
  action: LinkAction,
  approverName: string,
  inbox: string,
): string {
  const label = OUTCOME_ANSWER[action];
  // The step and the reason come from the tool: shown, never obeyed, one fact a line.
  const facts = attemptFacts(approval.attempt)
    .map(([k, v]) => `${k}: ${shown(v)}`)
    .join('\n');
  const reason =
    action === 'reject'
      ? `<label for="message">What you know of it (the agent is told)</label><textarea id="message" name="message" maxlength="4000"></textarea>`
      : '';
  return page(
    `${label}?`,
    `<p>Agent <strong>${shown(approval.agent)}</strong> ran <strong>${shown(approval.tool)}</strong>.</p>
<p>${shown(approval.description)}</p>
<p>${escapeHtml(OUTCOME_WHY)}</p>
<h2>Arguments it ran with</h2>
<pre>${shownJson(approval.args)}</pre>
<h2>The attempt</h2>
<pre>${facts}</pre>
<p>${escapeHtml(OUTCOME_EFFECT[action])}</p>
${requirementsHtml(approval)}
<p class="note">Signed in by this link as ${shown(approverName)}. Nothing has happened yet: confirm below. Answer before ${timeHtml(approval.deadline)}. ${escapeHtml(OUTCOME_DEADLINE)}</p>
<form method="post">${reason}<button type="submit" class="${action}">${escapeHtml(label)}</button></form>
<p>${escapeHtml(OUTCOME_ANSWER.respond)}? <a href="${escapeHtml(inbox)}">Answer in the inbox with its result</a>.</p>`,
  );
}

/** The page after a link's decision was taken, in the words of the approval's kind. */
export function decidedPage(
  kind: ApprovalView['kind'] | undefined,
  action: LinkAction,
  outcome: { status: string; approvals: number; requiredApprovals: number },
  inbox: string,
): string {
  // An outcome approval keeps the call's quorum: one answer of several changes nothing yet.
  if (kind === 'outcome' && outcome.status === 'pending') {
    return messagePage(
      'Answer recorded',
      `${outcome.approvals} of ${outcome.requiredApprovals} people have given this answer so far; it takes effect once enough have.`,
      inbox,
    );
  }
  if (kind === 'outcome') {
    return action === 'approve'
      ? messagePage('Running it again', `Thank you. ${OUTCOME_EFFECT.approve}`, inbox)
      : messagePage('Recorded: it failed', `Thank you. ${OUTCOME_EFFECT.reject}`, inbox);
  }
  const title =
    action === 'approve' ? (outcome.status === 'pending' ? 'Approval recorded' : 'Approved') : 'Rejected';
  const detail =
    outcome.status === 'pending'
      ? `${outcome.approvals} of ${outcome.requiredApprovals} approvals so far; the call runs once enough people approve.`
      : 'Thank you. The agent continues with your decision.';
  return messagePage(title, detail, inbox);
}

/** An outcome approval's answers, in their own words. */
const OUTCOME_HOW: Partial<Record<ApprovalView['status'], string>> = {
  approved: `Answered “${OUTCOME_ANSWER.approve}”`,
  rejected: `Answered “${OUTCOME_ANSWER.reject}”`,
  responded: `Answered “${OUTCOME_ANSWER.respond}”`,
};

const THROUGH: Record<Channel, string> = {
  inbox: 'the inbox',
  email: 'an email link',
  cli: 'the command line',
  api: 'the REST API',
  slack: 'Slack',
  chat: 'a chat',
};

/**
 * The page of a link to an approval already decided: how it ended, by whom, through which channel
 * and when, as the run's audit trail records it (`events`: the run's). Nothing was changed.
 */
export function settledPage(approval: ApprovalView, events: RunEvent[], inbox: string): string {
  const outcome = approval.outcome;
  const how =
    (approval.kind === 'outcome' ? OUTCOME_HOW[approval.status] : undefined) ?? SETTLED_HOW[approval.status];
  const latest = [...events].reverse();
  const who = (outcome?.by ?? []).map((id) => {
    // A cancel settles every open approval of the run: its entry is the run's, not the approval's.
    const entry = latest.find(
      (e) =>
        e.actor === id &&
        (e.type === 'run.cancelled' ||
          (e.type === 'approval.decided' && e.trackingId === approval.trackingId)),
    );
    const through = entry?.channel ? ` through ${THROUGH[entry.channel]}` : '';
    return `<strong>${shown(id)}</strong>${through}${entry ? ` at ${timeHtml(entry.at)}` : ''}`;
  });
  const settled = outcome ? ` (settled ${timeHtml(outcome.at)})` : '';
  const said =
    approval.status === 'expired'
      ? `${how}: nobody decided before the deadline${settled}.`
      : who.length > 0
        ? `${how} by ${who.join(' and ')}${who.length > 1 ? settled : ''}.`
        : `${how}${settled}.`;
  // A rejection's reason is the rejecter's own word; other messages repeat what is said above.
  const message =
    outcome?.message && approval.status === 'rejected' ? `<p>“${shown(outcome.message)}”</p>` : '';
  return page(
    `Already ${SETTLED_HOW[approval.status].toLowerCase()}`,
    `<p>${said}</p>
${message}<p>Nothing was changed.</p>
<p><a href="${escapeHtml(inbox)}">Open the inbox</a></p>`,
  );
}
