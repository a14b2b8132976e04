// @ts-check
import { h, json } from '../dom.js';

/**
 * Arguments as a person reads them: one line a field, multi-line strings as their lines.
 * @param {import('../../types/inbox.js').JsonObject | undefined} args
 */
export function argValues(args) {
  const entries = Object.entries(args ?? {});
  if (entries.length === 0) return h('p', { class: 'muted' }, 'No arguments.');
  return h(
    'dl',
    { class: 'arg-values' },
    entries.map(([key, value]) => [
      h('dt', {}, h('code', {}, key)),
      h('dd', {}, h('pre', {}, typeof value === 'string' ? value : json(value))),
    ]),
  );
}
