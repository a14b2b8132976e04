// @ts-check
import { h } from '../dom.js';
import { resultEditor } from '../result-editor.js';
import { argValues } from './arg-values.js';
import { OUTCOME_ANSWERS, attemptFacts } from './outcome.js';

/**
 * The three answers to "did this happen?", over the decision panel's own `send` (respond, approve,
 * reject): only their words, explanations and order are this kind's. `button` makes a button the
 * panel disables while a decision is on its way; `say` writes above the buttons.
 * @param {import('../../types/inbox.js').ApprovalView} a
 * @param {import('./decision-panel.js').Controls} controls
 */
export function outcomeChoices(a, { button, send, say }) {
  const allowed = new Set(a.allowedDecisions);
  const work = [
    h('h2', {}, 'The call that ran'),
    h('p', { class: 'tool' }, h('code', {}, a.tool)),
    argValues(a.args),
    h('h2', {}, 'What is known of the attempt'),
    attemptFacts(a.attempt),
  ];
  const actions = [
    h(
      'p',
      { class: 'explain' },
      `Nobody knows whether this call took effect: the attempt ended without ${a.tool} saying how. `,
      'It is not run again unless you say so.',
    ),
  ];

  if (allowed.has('respond')) {
    const editor = resultEditor({ schema: a.schema, id: `result-${a.trackingId}` });
    const form = h(
      'form',
      {
        class: 'result-form',
        id: `happened-${a.trackingId}`,
        'aria-label': 'The result it had',
        hidden: true,
        // Enter in a field must never decide: sending takes an explicit press of a button.
        onsubmit: (/** @type {SubmitEvent} */ e) => e.preventDefault(),
      },
      h('p', { class: 'hint' }, 'Give the result it had: the model sees it as the tool’s output.'),
      editor.element,
      h(
        'div',
        { class: 'row' },
        button('Send result', 'primary', () => {
          const { value, errors } = editor.read();
          editor.showErrors(errors);
          if (errors.length > 0) return say('The result is not valid: see the fields marked in red.', true);
          return send({ type: 'respond', result: value }, (fields) => editor.showErrors(fields));
        }),
      ),
    );
    const opener = button(OUTCOME_ANSWERS.respond, 'secondary', () => {
      form.hidden = false;
      opener.setAttribute('aria-expanded', 'true');
      editor.focus();
    });
    opener.setAttribute('aria-expanded', 'false');
    opener.setAttribute('aria-controls', form.id);
    actions.push(h('div', { class: 'choice' }, h('div', { class: 'row' }, opener), form));
  }

  if (allowed.has('approve'))
    actions.push(
      h(
        'div',
        { class: 'choice' },
        h(
          'p',
          { class: 'hint' },
          'One more attempt, under the same idempotency key. Only if you know it did not take effect.',
        ),
        h(
          'div',
          { class: 'row' },
          button(OUTCOME_ANSWERS.approve, 'secondary', () => send({ type: 'approve' })),
        ),
      ),
    );

  if (allowed.has('reject')) {
    const id = `failed-${a.trackingId}`;
    const area = h('textarea', { id, rows: 2, maxlength: 4000 });
    actions.push(
      h(
        'div',
        { class: 'choice' },
        h('label', { for: id }, 'What went wrong (optional; the model is told the call did not complete)'),
        area,
        h(
          'div',
          { class: 'row' },
          button(OUTCOME_ANSWERS.reject, 'danger', () =>
            send(area.value.trim() ? { type: 'reject', message: area.value.trim() } : { type: 'reject' }),
          ),
        ),
      ),
    );
  }
  return { work, actions };
}
