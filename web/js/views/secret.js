// @ts-check
import { h } from '../dom.js';
import { argValues } from './arg-values.js';

/** @typedef {import('../../types/inbox.js').ApprovalSummary} ApprovalSummary */
/** @typedef {import('../../types/inbox.js').ApprovalView} ApprovalView */
/** @typedef {import('./decision-panel.js').Controls} Controls */

/**
 * A secret a tool needs from a person (a password, a one-time code). The protocol reuses respond
 * (supply it) and reject (decline) for the answers; every view that shows such an approval or its
 * answers takes its words from this module. The value a person types goes to the API and nowhere
 * else: no view has it to show, and the API gives it back to no one (the run holds it sealed).
 */

export const SECRET_BADGE = 'Secret';

export function secretBadge() {
  return h('span', { class: 'badge badge-secret' }, SECRET_BADGE);
}

/** What is asked for, in the person's words: the tool's label, or the secret's name without one. */
export const secretLabel = (/** @type {ApprovalSummary} */ a) =>
  a.secret?.label ?? a.secret?.name ?? 'a secret';

/** What the toast says once an answer is taken: never the value. */
export const SECRET_DONE = /** @type {Record<string, string>} */ ({
  respond: 'Secret supplied',
  reject: 'Declined: the call goes without it',
});

/** How a secret approval ended, as its outcome section and the lists say it. */
export const SECRET_HOW = /** @type {Record<string, string>} */ ({
  responded: 'Supplied',
  rejected: 'Declined',
  expired: 'Not supplied: nobody answered by the deadline',
  cancelled: 'Cancelled',
});

/**
 * The settled status of a secret approval, for the audit trail and the transcript.
 * @param {string} status
 * @param {string[]} [by]
 */
export function settledWords(status, by = []) {
  const who = by.length ? by.join(', ') : 'a person';
  if (status === 'responded') return `supplied by ${who}`;
  if (status === 'rejected') return `declined by ${who}`;
  if (status === 'expired') return 'not supplied: nobody answered by the deadline';
  if (status === 'pending') return 'waiting for someone to supply it';
  return status;
}

/**
 * What was asked and for which call: the same on the open and the settled approval. The call's
 * arguments say what the secret unlocks (which report, which database); one the model asked for
 * by name, for no call yet, has none.
 * @param {ApprovalSummary} a
 */
export function secretAsked(a) {
  const forCall = Object.keys(a.args ?? {}).length > 0;
  return [
    h('h2', {}, 'Secret asked for'),
    h('p', { class: 'secret-label' }, secretLabel(a)),
    h('p', { class: 'tool' }, 'For ', h('code', {}, a.tool), forCall ? ', called with:' : null),
    forCall ? argValues(a.args) : null,
    a.question ? [h('h3', {}, 'Question'), h('p', { class: 'question' }, a.question)] : null,
  ];
}

/**
 * Where a supplied secret went, on the settled approval: the page has no value to show, by design.
 * @param {ApprovalSummary} a
 */
export function secretKept(a) {
  if (a.status !== 'responded') return null;
  return h(
    'p',
    { class: 'muted' },
    `Only ${a.tool} received it. Its value is shown nowhere: the run holds it sealed, and nobody can read it back.`,
  );
}

/**
 * Supply or decline, over the decision panel's own `send`: only the field and the words are this
 * kind's. `button` makes a button the panel disables while a decision is on its way; `say`
 * writes above the buttons. The typed value lives in the password field until it is sent, then
 * only in the request: the field is emptied before the request leaves, whatever its answer, so a
 * refused value is typed again rather than left on the page.
 * @param {ApprovalView} a
 * @param {Controls} controls
 */
export function secretForm(a, { button, send, say }) {
  const allowed = new Set(a.allowedDecisions);
  const work = [
    ...secretAsked(a),
    h(
      'p',
      { class: 'explain' },
      `Only ${a.tool} receives it, sealed on its way: the model never sees it, and nobody can read it back here or anywhere.`,
    ),
  ];
  /** @type {HTMLElement[]} */
  const actions = [];

  if (allowed.has('respond')) {
    const id = `secret-${a.trackingId}`;
    // No name attribute: a form that did submit could not put the value in a URL.
    const field = h('input', {
      id,
      type: 'password',
      autocomplete: 'off',
      autocapitalize: 'off',
      spellcheck: 'false',
      maxlength: 8192,
    });
    const supply = () => {
      const secret = field.value;
      field.value = '';
      if (secret === '') {
        field.focus();
        return say('Type the secret first: nothing was sent.', true);
      }
      return send({ type: 'respond', secret });
    };
    actions.push(
      h(
        'form',
        {
          class: 'choice secret-form',
          'aria-label': 'Supply the secret',
          // Enter in a field must never decide: sending takes an explicit press of a button.
          onsubmit: (/** @type {SubmitEvent} */ e) => e.preventDefault(),
        },
        h('label', { for: id }, secretLabel(a)),
        field,
        h('div', { class: 'row' }, button('Supply secret', 'primary', supply)),
      ),
    );
  }

  if (allowed.has('reject')) {
    const id = `decline-${a.trackingId}`;
    const area = h('textarea', { id, rows: 2, maxlength: 4000 });
    actions.push(
      h(
        'div',
        { class: 'choice' },
        h('label', { for: id }, 'Why not (optional; the call fails and the model is told)'),
        area,
        h(
          'div',
          { class: 'row' },
          button('Decline', 'danger', () =>
            send(area.value.trim() ? { type: 'reject', message: area.value.trim() } : { type: 'reject' }),
          ),
        ),
      ),
    );
  }
  return { work, actions };
}

/**
 * Beside a tool's result in the transcript, one line per secret its call was given, and by whom,
 * so a result is read knowing a person's credential went into it. Never the value: the run has none.
 * @param {ApprovalSummary} a
 */
export const secretMarkLine = (a) => [
  secretBadge(),
  ` ${secretLabel(a)}: `,
  h('strong', {}, settledWords(a.status, a.outcome?.by)),
];
