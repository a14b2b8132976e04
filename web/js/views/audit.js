// @ts-check
import { h, when } from '../dom.js';
import { OUTCOME_ANSWERS, settledWords, unknownSentence } from './outcome.js';
import { secretLabel, settledWords as secretSettled } from './secret.js';

/** @typedef {import('../../types/inbox.js').ApprovalSummary} ApprovalSummary */
/** @typedef {import('../../types/inbox.js').RunEvent} RunEvent */

/**
 * An entry's `data`, an object the run wrote (`by`, `kind`...), or an empty one.
 * @param {RunEvent} e
 * @returns {Record<string, unknown>}
 */
const dataOf = (e) => (e.data && typeof e.data === 'object' && !Array.isArray(e.data) ? e.data : {});

/**
 * The settled entry's deciders, as the run recorded them.
 * @param {RunEvent} e
 * @returns {string[]}
 */
const settledBy = (e) => {
  const by = dataOf(e).by;
  return Array.isArray(by) ? by : [];
};

/**
 * An entry about an unknown outcome, whose answers travel as respond / approve / reject.
 * @param {RunEvent} e
 */
function outcomeWords(e) {
  if (e.type === 'approval.requested') return `Asked whether the call to ${e.tool} happened`;
  if (e.type === 'approval.decided' && e.decision)
    return `Answered: ${OUTCOME_ANSWERS[e.decision] ?? e.decision}`;
  if (e.type === 'approval.settled' && e.status)
    return `Outcome of ${e.tool}: ${settledWords(e.status, settledBy(e))}`;
  return null;
}

/**
 * An entry about a secret: supplied (respond) or declined (reject). The entry holds no value,
 * and neither do these words: only what was asked for, and who answered.
 * @param {RunEvent} e
 * @param {ApprovalSummary | undefined} approval
 */
function secretWords(e, approval) {
  const what = approval ? secretLabel(approval) : 'a secret';
  if (e.type === 'approval.requested') return `${e.tool} asked for ${what}`;
  if (e.type === 'approval.decided' && e.decision === 'respond')
    return `Supplied by ${e.actor ?? 'a person'}`;
  if (e.type === 'approval.decided' && e.decision === 'reject') return `Declined by ${e.actor ?? 'a person'}`;
  if (e.type === 'approval.settled' && e.status)
    return `Secret for ${e.tool}: ${secretSettled(e.status, settledBy(e))}`;
  return null;
}

/**
 * What an entry means beyond its fields, where they alone would mislead: an attempt whose outcome
 * nobody knows, the answers about it, and secrets supplied or declined, all of which travel as
 * respond / approve / reject.
 * @param {RunEvent} e
 * @param {Map<string, ApprovalSummary>} approvals
 */
function words(e, approvals) {
  if (e.type === 'tool.unknown') return unknownSentence(e);
  const approval = e.trackingId === undefined ? undefined : approvals.get(e.trackingId);
  const kind = approval?.kind ?? dataOf(e).kind;
  if (kind === 'outcome') return outcomeWords(e);
  if (kind === 'secret') return secretWords(e, approval);
  return null;
}

/**
 * The audit trail: every request and decision with who, when, through which channel, and the diff.
 * `approvals` (those of the run, or the one shown) tell which entries are about an unknown outcome
 * or a secret.
 * @param {RunEvent[]} events
 * @param {{ approvals?: ApprovalSummary[] }} [options]
 */
export function auditView(events, { approvals = [] } = {}) {
  if (events.length === 0) return h('p', { class: 'muted' }, 'No entries yet.');
  const byId = new Map(approvals.map((a) => [a.trackingId, a]));
  return h(
    'ol',
    { class: 'audit' },
    events.map((e) => {
      const said = words(e, byId);
      return h(
        'li',
        {},
        h('time', { datetime: e.at }, when(e.at)),
        ' ',
        h('strong', {}, e.type),
        e.trackingId ? [' ', h('code', {}, e.trackingId)] : null,
        e.actor ? ` by ${e.actor}` : '',
        e.channel ? ` via ${e.channel}` : '',
        e.decision ? ` · ${e.decision}` : '',
        e.status ? ` → ${e.status}` : '',
        e.code ? ` · refused: ${e.code}` : '',
        said ? h('div', { class: 'said' }, said) : null,
        e.reason ? h('div', { class: 'muted' }, e.reason) : null,
        e.message ? h('div', {}, '“', e.message, '”') : null,
        e.diff?.length
          ? h(
              'ul',
              { class: 'diff' },
              e.diff.map((d) =>
                h(
                  'li',
                  {},
                  h('code', {}, d.path),
                  ': ',
                  h('del', {}, JSON.stringify(d.before) ?? '(absent)'),
                  ' → ',
                  h('ins', {}, JSON.stringify(d.after) ?? '(removed)'),
                ),
              ),
            )
          : null,
      );
    }),
  );
}
