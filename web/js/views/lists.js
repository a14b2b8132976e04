// @ts-check
import { api } from '../api.js';
import { h, statusChip, time } from '../dom.js';
import { pagedList, pageQuery } from '../paged.js';
import { approvalTitle, askedBy, howSettled, kindBadge } from './approval.js';
import { attemptLine } from './outcome.js';
import { secretLabel } from './secret.js';

/** @typedef {import('../../types/inbox.js').ApprovalSummary} ApprovalSummary */
/** @typedef {import('../../types/inbox.js').Ctx} Ctx */
/** @typedef {import('../../types/inbox.js').View} View */

/**
 * Who decided, how and when; or why no one did.
 * @param {ApprovalSummary} a
 */
function decidedLine(a) {
  const o = a.outcome;
  if (!o) return null;
  return h(
    'span',
    { class: 'decided-by' },
    howSettled(a, o.status),
    o.by.length ? ` by ${o.by.join(', ')}` : '',
    ' · ',
    time(o.at),
  );
}

/**
 * @param {Ctx} ctx
 * @param {ApprovalSummary} a
 */
function card(ctx, a) {
  const tiers = a.requirements.filter((r) => r.tier).map((r) => r.tier);
  const quorum =
    (a.requiredApprovals > 1 || a.requirements.length > 1
      ? ` · ${a.approvals.length} approval(s), needs ${a.requirements.map((r) => `${r.count} ${r.roles.join('/')}`).join(' + ')}`
      : '') + (tiers.length ? ` · ${tiers.join(', ')}` : '');
  const pending = a.status === 'pending';
  return h(
    'li',
    { class: 'card' },
    h(
      'a',
      { href: `#/approvals/${encodeURIComponent(a.trackingId)}` },
      h(
        'span',
        { class: 'card-title' },
        kindBadge(a),
        h('strong', {}, approvalTitle(a)),
        ' ',
        statusChip(a.status),
      ),
      h('span', { class: 'card-desc' }, a.question ?? a.description),
      a.kind === 'outcome' ? attemptLine(a.attempt) : null,
      // A question names the secret only in the model's words: say what the tool asks for too.
      a.kind === 'secret' && a.question
        ? h('span', { class: 'secret-line' }, `${a.tool} needs ${secretLabel(a)}`)
        : null,
      pending ? null : decidedLine(a),
      h(
        'span',
        { class: 'muted' },
        `${askedBy(a)} · requested by ${a.requester ?? 'unknown'}, `,
        time(a.requestedAt),
        pending ? [' · due ', time(a.deadline), quorum] : '',
      ),
    ),
  );
}

/**
 * @param {Ctx} ctx
 * @param {HTMLElement} list
 * @param {HTMLElement} note
 * @param {Iterable<ApprovalSummary>} approvals
 * @param {string} empty
 */
function render(ctx, list, note, approvals, empty) {
  const sorted = [...approvals].sort((a, b) => (a.requestedAt < b.requestedAt ? 1 : -1));
  list.replaceChildren(...sorted.map((a) => card(ctx, a)));
  note.textContent = sorted.length === 0 ? empty : '';
}

/**
 * What waits for a decision: kept current by the live store, so arrivals show at once.
 * @param {Ctx} ctx
 * @returns {Promise<View>}
 */
export async function inboxView(ctx) {
  const title = 'Waiting for a decision';
  const list = h('ul', { class: 'cards', 'aria-label': title });
  const note = h('p', { class: 'muted' });
  const show = () =>
    render(
      ctx,
      list,
      note,
      ctx.pending.items.values(),
      'Nothing waits for you. New approvals appear here as they arrive.',
    );
  await ctx.pending.load();
  show();
  return {
    element: h('section', {}, h('h1', {}, title), note, list, h('div', { class: 'row' }, ctx.pending.button)),
    pendingChanged: show,
  };
}

/**
 * @param {Ctx} ctx
 * @returns {Promise<View>}
 */
export async function decidedView(ctx) {
  const title = 'Decided';
  const list = h('ul', { class: 'cards', 'aria-label': title });
  const note = h('p', { class: 'muted' });
  // The API pages decided approvals by run: a page may hold none and still have older ones after it.
  const decided = pagedList(
    async (pageToken) => {
      /** @type {{ data: import('../../types/inbox.js').ApprovalList }} */
      const { data } = await api(`api/approvals?status=decided${pageQuery(pageToken)}`);
      return { items: data.approvals, nextPageToken: data.nextPageToken };
    },
    {
      label: 'Show older decisions',
      onError: (err) => ctx.toast(err instanceof Error ? err.message : String(err)),
      onChange: (items) => render(ctx, list, note, items, 'No decided approvals yet.'),
    },
  );
  await decided.reload();
  return {
    element: h('section', {}, h('h1', {}, title), note, list, h('div', { class: 'row' }, decided.button)),
    wants: (event) => event.type === 'approval.settled',
    reload: decided.reload,
  };
}
