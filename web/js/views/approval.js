import { api } from '../api.js';
import { diffArgs, diffView } from '../args-editor.js';
import { append, clear, h, json, statusChip, when } from '../dom.js';
import { auditView } from './audit.js';
import { decisionPanel } from './decision-panel.js';
import { modelWords, transcriptView } from './transcript.js';

/** Each requirement of the policy, and how much of it is met: which rule asked, and who counts. */
function requirementItems(a) {
  return a.requirements.map((r) => {
    const have = a.approvals.filter((s) => s.roles.some((role) => r.roles.includes(role))).length;
    const why = r.tier ? `${r.tier}: ${r.reason}` : r.reason;
    return h(
      'li',
      {},
      `${r.roles.join(' or ')}: ${Math.min(have, r.count)} of ${r.count}${have >= r.count ? ' (met)' : ''} `,
      h('span', { class: 'why' }, `(${why})`),
    );
  });
}

function facts(a) {
  const rows = [
    ['Agent', a.agent],
    ['Run', h('a', { href: `#/runs/${encodeURIComponent(a.runId)}` }, a.runId)],
    ['Tracking id', h('code', {}, a.trackingId)],
    ['Requested by', a.requester ?? 'unknown'],
    ['Requested', when(a.requestedAt)],
    ['Deadline', `${when(a.deadline)}${a.escalated ? ' (escalated)' : ''}`],
    ['Who may decide', a.approvers.join(', ')],
    ['Needs', h('ul', { class: 'requirements' }, requirementItems(a))],
    ['Approved by', a.approvals.length ? a.approvals.map((s) => s.approver).join(', ') : 'nobody yet'],
  ];
  return h(
    'dl',
    { class: 'facts' },
    rows.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
  );
}

function proposal(a) {
  if (a.kind === 'question')
    return [h('h2', {}, 'Question'), h('p', { class: 'question' }, a.question ?? '')];
  if (a.kind === 'plan') return [];
  const parts = [
    h('h2', {}, 'Proposed call'),
    h('p', {}, h('code', {}, a.tool)),
    h('pre', { class: 'args', 'aria-label': 'Proposed arguments' }, json(a.args)),
  ];
  if (a.kind === 'result') parts.push(h('h2', {}, 'Result for review'), h('pre', {}, json(a.result)));
  return parts;
}

function outcome(a) {
  const o = a.outcome;
  if (!o) return h('p', {}, statusChip(a.status));
  return h(
    'section',
    { class: 'panel', 'aria-label': 'Outcome' },
    h('h2', {}, 'Outcome'),
    h('p', {}, statusChip(o.status), o.by.length ? ` by ${o.by.join(', ')}` : '', ` · ${when(o.at)}`),
    o.message ? h('p', {}, '“', o.message, '”') : null,
    o.diff?.length ? diffView(o.diff) : null,
    o.plan ? h('pre', {}, json(o.plan)) : null,
    o.result !== undefined ? h('pre', {}, json(o.result)) : null,
  );
}

/** One approval: its run's context, the proposal, the decision panel or outcome, the audit trail. */
export async function approvalView(ctx, trackingId) {
  const root = h('article', { class: 'approval' });
  let shown = null;
  let loads = 0;
  async function load() {
    // A live update and a decision can both reload: only the latest one started may render.
    const mine = ++loads;
    const { data: a } = await api(`/api/approvals/${encodeURIComponent(trackingId)}`);
    const run = await api(`/api/runs/${encodeURIComponent(a.runId)}`).then(
      (r) => r.data,
      () => null,
    );
    if (mine !== loads) return;
    // Changed while open (an edit elsewhere): say so and show what changed above any button.
    const changed =
      shown && a.revision !== shown.revision
        ? h(
            'section',
            { class: 'changed', role: 'alert', 'aria-label': 'Proposal changed' },
            h(
              'h2',
              {},
              `The proposal changed while you were looking (revision ${shown.revision} → ${a.revision})`,
            ),
            a.kind === 'plan'
              ? h('pre', {}, json(a.plan))
              : diffView(
                  diffArgs(
                    shown.kind === 'result' ? shown.result : shown.args,
                    a.kind === 'result' ? a.result : a.args,
                  ),
                ),
          )
        : null;
    shown = a;
    const words = run ? modelWords(run.transcript, a.toolCallId) : '';
    append(clear(root), [
      h('h1', {}, a.kind === 'question' ? 'Question from ' : '', a.tool, ' ', statusChip(a.status)),
      changed,
      h('p', { class: 'lede' }, a.description),
      facts(a),
      run
        ? h(
            'section',
            { 'aria-label': 'Context' },
            h('h2', {}, 'Context'),
            h('p', {}, h('span', { class: 'muted' }, 'Asked: '), run.input),
            words ? h('blockquote', { class: 'words' }, words) : null,
            h(
              'details',
              {},
              h('summary', {}, 'Full transcript'),
              transcriptView(run.transcript, { highlight: a.toolCallId }),
            ),
          )
        : null,
      proposal(a),
      a.status === 'pending' ? decisionPanel(ctx, a, load) : outcome(a),
      h('section', { 'aria-label': 'Audit trail' }, h('h2', {}, 'Audit trail'), auditView(a.decisions)),
    ]);
  }
  await load();
  return {
    element: root,
    wants: (event) =>
      event.trackingId === trackingId &&
      ['approval.decided', 'approval.settled', 'approval.escalated'].includes(event.type),
    reload: load,
  };
}
