// @ts-check
import { api } from '../api.js';
import { h, setText, time } from '../dom.js';

/** @typedef {import('../../types/inbox.js').ApprovalDetail} ApprovalDetail */
/** @typedef {import('../../types/inbox.js').Decision} Decision */
/** @typedef {import('../../types/inbox.js').RunDetail} RunDetail */
/** @typedef {NonNullable<RunDetail['standing']>[number]} Standing */

/** @param {number} seconds */
function duration(seconds) {
  if (seconds % 3600 === 0) return `${seconds / 3600} hour${seconds === 3600 ? '' : 's'}`;
  if (seconds % 60 === 0) return `${seconds / 60} minute${seconds === 60 ? '' : 's'}`;
  return `${seconds} seconds`;
}

/**
 * The approver's choice to approve "this call and the rest like it in this run", where the call's
 * policy offers it: unticked by default, and its terms said in full, since it signs for later calls.
 * @param {ApprovalDetail} a
 * @returns {{ element: HTMLElement, decide: (decision: Decision) => Decision } | null}
 */
export function standingChoice(a) {
  const terms = a.kind === 'call' ? a.standing : undefined;
  if (!terms) return null;
  const box = h('input', { type: 'checkbox', id: `standing-${a.trackingId}` });
  const varies = Object.keys(terms.bounds ?? {});
  const element = h(
    'p',
    { class: 'standing-choice' },
    box,
    ' ',
    h(
      'label',
      { for: box.id },
      `Also approve up to ${terms.maxCalls} later ${a.tool} call${terms.maxCalls === 1 ? '' : 's'} like this one in this run, for ${duration(terms.maxSeconds)}`,
      varies.length > 0
        ? ` (${varies.join(', ')} within the policy's bounds; every other argument the same)`
        : ' (the same arguments)',
    ),
  );
  return {
    element,
    decide: (decision) =>
      box.checked && (decision.type === 'approve' || decision.type === 'edit')
        ? { ...decision, standing: true }
        : decision,
  };
}

/**
 * The run's standing approvals: what each covers and until when, and a Revoke button on those still
 * in force (the API and the run check the revoker's role).
 * @param {RunDetail} run
 * @param {() => Promise<void>} reload
 */
export function standingList(run, reload) {
  const standing = run.standing ?? [];
  if (standing.length === 0) return null;
  return [
    h('h2', {}, 'Standing approvals'),
    h(
      'ul',
      { class: 'standing' },
      standing.map((s) => standingItem(run.runId, s, reload)),
    ),
  ];
}

/**
 * @param {string} runId
 * @param {Standing} s
 * @param {() => Promise<void>} reload
 */
function standingItem(runId, s, reload) {
  const status = h('span', { class: 'form-status', role: 'alert' });
  const revoke = h('button', { type: 'button', class: 'secondary' }, 'Revoke');
  revoke.onclick = async () => {
    revoke.disabled = true;
    setText(status, 'Revoking…');
    try {
      await api(`api/runs/${encodeURIComponent(runId)}/standing/${encodeURIComponent(s.trackingId)}/revoke`, {
        method: 'POST',
        body: {},
        headers: { 'x-countersign-channel': 'inbox' },
      });
      setText(status, 'Revoked: later calls ask again.');
      await reload();
    } catch (err) {
      setText(status, err instanceof Error ? err.message : String(err));
      status.classList.add('problem');
      revoke.disabled = false;
    }
  };
  return h(
    'li',
    {},
    h('code', {}, s.tool),
    ` · ${s.status} · granted by ${s.grantedBy.join(', ')} · ${s.covered.length} of ${s.maxCalls} later calls run · until `,
    time(s.expiresAt),
    s.revokedBy ? ` · revoked by ${s.revokedBy.actor}` : '',
    ' ',
    s.status === 'active' ? revoke : null,
    status,
  );
}
