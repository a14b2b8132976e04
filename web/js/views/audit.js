import { h, when } from '../dom.js';
import { OUTCOME_ANSWERS, settledWords, unknownSentence } from './outcome.js';

/**
 * What an entry means beyond its fields, where they alone would mislead: an attempt whose outcome
 * nobody knows, and the answers about it, which travel as respond / approve / reject.
 */
function words(e, kinds) {
  if (e.type === 'tool.unknown') return unknownSentence(e);
  if (kinds.get(e.trackingId) !== 'outcome' && e.data?.kind !== 'outcome') return null;
  if (e.type === 'approval.requested') return `Asked whether the call to ${e.tool} happened`;
  if (e.type === 'approval.decided' && e.decision)
    return `Answered: ${OUTCOME_ANSWERS[e.decision] ?? e.decision}`;
  if (e.type === 'approval.settled' && e.status)
    return `Outcome of ${e.tool}: ${settledWords(e.status, Array.isArray(e.data?.by) ? e.data.by : [])}`;
  return null;
}

/**
 * The audit trail: every request and decision with who, when, through which channel, and the diff.
 * `approvals` (those of the run, or the one shown) tell which entries are about an unknown outcome.
 */
export function auditView(events, { approvals = [] } = {}) {
  if (events.length === 0) return h('p', { class: 'muted' }, 'No entries yet.');
  const kinds = new Map(approvals.map((a) => [a.trackingId, a.kind]));
  return h(
    'ol',
    { class: 'audit' },
    events.map((e) => {
      const said = words(e, kinds);
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
