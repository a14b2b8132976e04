import type { ApprovalView } from '../protocol/index.js';
import { escapeHtml } from '../notify/html.js';
import type { LinkAction } from '../notify/links.js';

/** Pages for email links: server-rendered, every value escaped, no scripts. */
function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Countersign</title>
<style>
body{font-family:system-ui,sans-serif;max-width:640px;margin:2rem auto;padding:0 1rem;color:#1c1c1c;line-height:1.45}
pre{background:#f4f4f4;padding:.75rem;white-space:pre-wrap;word-break:break-word;border-radius:6px}
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

export function confirmPage(
  approval: ApprovalView,
  action: LinkAction,
  approverName: string,
  inbox: string,
): string {
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
