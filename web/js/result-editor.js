// @ts-check
import { argsEditor } from './args-editor.js';
import { h } from './dom.js';
import { validate } from './validate.js';

/** @typedef {import('../types/inbox.js').FieldError} FieldError */
/** @typedef {import('../types/inbox.js').FormSchema} FormSchema */
/** @typedef {import('../types/inbox.js').JsonSchema} JsonSchema */
/** @typedef {import('../types/inbox.js').JsonValue} JsonValue */

/**
 * Free text, or JSON when it parses as JSON.
 * @param {string} text
 * @param {JsonSchema | undefined} schema
 * @returns {JsonValue}
 */
export function answerValue(text, schema) {
  if (schema?.type === 'string') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `/result/restarted` (as the server names a result's fields) → `restarted`, as the form names it. */
const withinResult = (/** @type {FieldError[]} */ errors) =>
  errors.map((e) => ({ ...e, path: String(e.path ?? '').replace(/^\/?result(?:[./]|$)/, '') }));

/**
 * A result a person gives in a tool's place, checked against the tool's result schema as it is
 * typed in: an object with known fields is a form of them (as arguments are), anything else a
 * JSON-or-text box. The server checks again with the tool's own schema; its field errors show
 * in the same places.
 * @param {{ schema: JsonSchema | undefined, id: string }} options
 * @returns {{
 *   element: HTMLElement,
 *   read(): { value: JsonValue | undefined, errors: FieldError[] },
 *   showErrors(errors: FieldError[]): void,
 *   focus(): void,
 * }}
 */
export function resultEditor({ schema, id }) {
  const fields = /** @type {FormSchema | undefined} */ (schema)?.properties;
  if (schema?.type === 'object' && fields && Object.keys(fields).length > 0) {
    // Checked as typed, as arguments are: a field's problem shows beside it at once.
    const form = argsEditor({ schema, proposed: {}, onChange: () => form.showErrors(form.current().errors) });
    return {
      element: form.element,
      read() {
        const { args, errors } = form.current();
        return { value: args, errors };
      },
      showErrors: (errors) => form.showErrors(withinResult(errors)),
      focus: () =>
        /** @type {HTMLElement | null} */ (form.element.querySelector('input, textarea, select'))?.focus(),
    };
  }
  const area = h('textarea', { id, rows: 4, spellcheck: 'false', 'aria-describedby': `${id}-error` });
  const error = h('p', { id: `${id}-error`, class: 'field-error', 'aria-live': 'polite' });
  const showErrors = (/** @type {FieldError[]} */ errors) => {
    error.textContent = withinResult(errors)
      .map((e) => (e.path ? `${e.path} ${e.message}` : e.message))
      .join('; ');
    area.setAttribute('aria-invalid', errors.length > 0 ? 'true' : 'false');
  };
  return {
    element: h('div', {}, h('label', { for: id }, 'Result (JSON or text)'), area, error),
    read() {
      if (area.value.trim() === '')
        return { value: undefined, errors: [{ path: '', message: 'give the result it had' }] };
      const value = answerValue(area.value, schema);
      return { value, errors: validate(schema, value) };
    },
    showErrors,
    focus: () => area.focus(),
  };
}
