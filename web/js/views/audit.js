import { h, when } from '../dom.js';

/** The audit trail: every request and decision with who, when, through which channel, and the diff. */
export function auditView(events) {
  if (events.length === 0) return h('p', { class: 'muted' }, 'No entries yet.');
  return h(
    'ol',
    { class: 'audit' },
    events.map((e) =>
      h(
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
      ),
    ),
  );
}
