import type { ApprovalView, Decision } from '../protocol/index.js';
import type { EditPreview } from '../api/schemas.js';
import type { Api } from './http.js';

/**
 * What to say before an edit is sent: a warning for each requirement of the tier it moves into that
 * no approver who exists can meet (`Warning: large payment (pay: amount over 100000) needs 2
 * approvers with role admin; only 1 exists.`), as the run judges it now. The edit is still sent: the
 * run decides. Nothing when the API cannot tell (no approvers file, an API without previews).
 */
export async function editWarnings(api: Api, approval: ApprovalView, decision: Decision): Promise<string[]> {
  if (decision.type !== 'edit') return [];
  const edit = decision.plan ? { plan: decision.plan } : { args: decision.args };
  const preview = await api
    .request<EditPreview>('POST', `/api/approvals/${encodeURIComponent(approval.trackingId)}/preview`, edit)
    .then((answer) => answer.body)
    .catch(() => undefined);
  return (preview?.warnings ?? []).map((warning) => `Warning: ${warning}. The edit is sent anyway.`);
}
