import { visibleText, type ApprovalView } from '../protocol/index.js';
import { escapeHtml } from '../notify/html.js';
import type { LinkAction } from '../notify/links.js';
import {
  OUTCOME_ANSWER,
  OUTCOME_DEADLINE,
  OUTCOME_EFFECT,
  OUTCOME_WHY,
  attemptFacts,
} from '../notify/outcome-wording.js';

/** Pages for email links: server-rendered, every value escaped, no scripts. */
function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Countersign</title>
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
<h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>`;
}

export function messagePage(title: string, message: string, inbox?: string): string {
  return page(
    title,
    `<p>${escapeHtml(message)}</p>${inbox ? `<p><a href="${escapeHtml(inbox)}">Open the inbox</a></p>` : ''}`,
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

export function confirmPage(
  approval: ApprovalView,
  action: LinkAction,
  approverName: string,
  inbox: string,
): string {
  if (approval.kind === 'outcome') return outcomeConfirmPage(approval, action, approverName, inbox);
  const verb = action === 'approve' ? 'Approve' : 'Reject';
  const details = approval.plan
    ? approval.plan.map((s, i) => `${i + 1}. ${s.tool} ${JSON.stringify(s.args, null, 2)}`).join('\n')
    : JSON.stringify(approval.args, null, 2);
  const reason =
    action === 'reject'
      ? `<label for="message">Reason (the agent is told)</label><textarea id="message" name="message" maxlength="4000"></textarea>`
      : '';
  return page(
    `${verb} ${approval.tool}?`,
    `<p>Agent <strong>${escapeHtml(approval.agent)}</strong> asks to run <strong>${escapeHtml(approval.tool)}</strong>.</p>
<p>${escapeHtml(approval.description)}</p>
<pre>${escapeHtml(details)}</pre>
<p class="note">Signed in by this link as ${escapeHtml(approverName)}. Nothing has happened yet: confirm below. Decide before ${escapeHtml(approval.deadline)}.</p>
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
    .map(([k, v]) => `${k}: ${visibleText(v)}`)
    .join('\n');
  const reason =
    action === 'reject'
      ? `<label for="message">What you know of it (the agent is told)</label><textarea id="message" name="message" maxlength="4000"></textarea>`
      : '';
  return page(
    `${label}?`,
    `<p>Agent <strong>${escapeHtml(approval.agent)}</strong> ran <strong>${escapeHtml(approval.tool)}</strong>.</p>
<p>${escapeHtml(approval.description)}</p>
<p>${escapeHtml(OUTCOME_WHY)}</p>
<h2>Arguments it ran with</h2>
<pre>${escapeHtml(JSON.stringify(approval.args, null, 2))}</pre>
<h2>The attempt</h2>
<pre>${escapeHtml(facts)}</pre>
<p>${escapeHtml(OUTCOME_EFFECT[action])}</p>
<p class="note">Signed in by this link as ${escapeHtml(approverName)}. Nothing has happened yet: confirm below. Answer before ${escapeHtml(approval.deadline)}. ${escapeHtml(OUTCOME_DEADLINE)}</p>
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
