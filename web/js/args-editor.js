// @ts-check
import { bidiEscaped, h, hasBidi, json } from './dom.js';
import { validate } from './validate.js';

/** @typedef {import('../types/inbox.js').Change} Change */
/** @typedef {import('../types/inbox.js').FieldError} FieldError */
/** @typedef {import('../types/inbox.js').FormSchema} FormSchema */
/** @typedef {import('../types/inbox.js').JsonObject} JsonObject */
/** @typedef {import('../types/inbox.js').JsonSchema} JsonSchema */
/** @typedef {import('../types/inbox.js').JsonValue} JsonValue */
/** @typedef {{ value?: JsonValue, error?: string }} FieldRead */

let counter = 0;

/** @param {FormSchema | undefined} schema */
function kindOf(schema) {
  if (!schema || typeof schema !== 'object') return 'json';
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return 'enum';
  const type = Array.isArray(schema.type) ? schema.type.filter((t) => t !== 'null') : [schema.type];
  if (type.length !== 1) return 'json';
  if (type[0] === 'string') return 'string';
  if (type[0] === 'integer' || type[0] === 'number') return 'number';
  if (type[0] === 'boolean') return 'boolean';
  return 'json';
}

/**
 * One labelled control per top-level argument, with its error line and its current value.
 * @param {string} key
 * @param {FormSchema | undefined} schema
 * @param {boolean} required
 * @param {JsonValue | undefined} proposedValue
 * @param {boolean} editable
 * @param {() => void} onInput
 */
function field(key, schema, required, proposedValue, editable, onInput) {
  const id = `arg-${++counter}`;
  const errorId = `${id}-error`;
  const kind = kindOf(schema);
  const common = {
    id,
    name: key,
    'aria-describedby': errorId,
    disabled: !editable,
    oninput: onInput,
    onchange: onInput,
  };
  /** @type {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} */
  let control;
  const options = schema?.enum ?? [];
  if (kind === 'enum') {
    control = h(
      'select',
      common,
      options.map((option, i) => h('option', { value: String(i) }, JSON.stringify(option))),
    );
  } else if (kind === 'boolean') {
    control = h('input', { ...common, type: 'checkbox' });
  } else if (kind === 'number') {
    control = h('input', {
      ...common,
      type: 'number',
      step: schema?.type === 'integer' ? '1' : 'any',
      inputmode: 'decimal',
    });
  } else if (kind === 'string' && !long(schema, proposedValue)) {
    control = h('input', { ...common, type: 'text', autocomplete: 'off' });
  } else {
    // Multi-line text (a SQL query, an email body) is shown as the lines it holds, and grows with them.
    const text = kind === 'string' && typeof proposedValue === 'string' ? proposedValue : json(proposedValue);
    control = h('textarea', {
      ...common,
      class: 'grow',
      rows: Math.min(20, Math.max(kind === 'json' ? 4 : 3, String(text ?? '').split('\n').length)),
      spellcheck: 'false',
    });
  }
  const error = h('p', { id: errorId, class: 'field-error', 'aria-live': 'polite' });
  const label = h(
    'label',
    { for: id },
    key,
    required ? h('span', { class: 'req', 'aria-hidden': 'true' }, ' *') : null,
    editable ? null : h('span', { class: 'muted' }, ' (not editable)'),
  );
  const hint = schema?.description ? h('p', { class: 'hint' }, schema.description) : null;
  // A direction control in a field would reorder what the field shows: say so, and show it marked.
  const shown = kind === 'string' ? proposedValue : json(proposedValue);
  const bidi =
    typeof shown === 'string' && hasBidi(shown)
      ? h(
          'p',
          { class: 'bidi-warning' },
          'Holds hidden direction controls, marked here: ',
          h('span', { class: 'bidi-text' }, shown),
        )
      : null;

  /** @param {JsonValue | undefined} value */
  function set(value) {
    if (kind === 'enum')
      control.value = String(
        Math.max(
          0,
          options.findIndex((o) => JSON.stringify(o) === JSON.stringify(value)),
        ),
      );
    else if (kind === 'boolean') /** @type {HTMLInputElement} */ (control).checked = value === true;
    else if (kind === 'number') control.value = value === undefined ? '' : String(value);
    else if (kind === 'string')
      control.value = value === undefined ? '' : typeof value === 'string' ? value : json(value);
    else control.value = value === undefined ? '' : json(value);
  }

  /**
   * `{ value }` or `{ error }`; an empty optional control is an absent argument.
   * @returns {FieldRead}
   */
  function read() {
    if (kind === 'enum') return { value: options[Number(control.value)] };
    if (kind === 'boolean') return { value: /** @type {HTMLInputElement} */ (control).checked };
    const text = control.value;
    if (text.trim() === '' && (kind !== 'string' || proposedValue === undefined)) return { value: undefined };
    if (kind === 'string') return { value: text };
    if (kind === 'number') {
      const number = Number(text);
      return Number.isFinite(number) ? { value: number } : { error: 'must be a number' };
    }
    try {
      return { value: JSON.parse(text) };
    } catch {
      return { error: 'is not valid JSON' };
    }
  }

  /** @param {string[]} messages */
  function showError(messages) {
    error.textContent = messages.join('; ');
    control.setAttribute('aria-invalid', messages.length > 0 ? 'true' : 'false');
  }

  set(proposedValue);
  if (hasBidi(shown)) control.setAttribute('title', bidiEscaped(shown));
  return {
    key,
    element: h('div', { class: 'field' }, label, hint, control, bidi, error),
    set,
    read,
    showError,
    text: () =>
      kind === 'boolean' ? String(/** @type {HTMLInputElement} */ (control).checked) : control.value,
  };
}

/**
 * Strings that do not fit a one-line input: a single-line input would drop their line breaks.
 * @param {FormSchema | undefined} schema
 * @param {JsonValue | undefined} value
 */
function long(schema, value) {
  if ((schema?.maxLength ?? 0) > 200) return true;
  return typeof value === 'string' && (value.includes('\n') || value.length > 120);
}

/**
 * The top-level argument a field error names: paths may be `args.x.0`, `/args/x/0`, `/x/0` or `x`.
 * @param {string | undefined} path
 * @param {{ has(key: string): boolean }} keys
 */
export function errorKey(path, keys) {
  const parts = String(path ?? '')
    .split(/[./]/)
    .filter(Boolean);
  if (parts[0] === 'args' && !keys.has('args')) parts.shift();
  return { key: parts[0], rest: parts.slice(1) };
}

/**
 * The arguments editor for a proposed call, generated from the tool's JSON Schema: inline
 * validation, a diff against the proposal, and reset. `editableFields` locks the others.
 * @param {{
 *   schema: JsonSchema | undefined,
 *   proposed: JsonObject,
 *   editableFields?: string[],
 *   onChange?: () => void,
 * }} options
 */
export function argsEditor({ schema, proposed, editableFields, onChange }) {
  const form = /** @type {FormSchema | undefined} */ (schema);
  const properties = form?.properties ?? {};
  const required = new Set(form?.required ?? []);
  const keys = [...new Set([...Object.keys(properties), ...Object.keys(proposed)])];
  const generalError = h('p', { class: 'field-error', 'aria-live': 'polite' });
  const fields = keys.map((key) =>
    field(
      key,
      properties[key],
      required.has(key),
      proposed[key],
      !editableFields || editableFields.includes(key),
      () => onChange?.(),
    ),
  );

  /** @returns {{ args: JsonObject, errors: FieldError[] }} */
  function current() {
    /** @type {JsonObject} */
    const args = {};
    /** @type {FieldError[]} */
    const errors = [];
    for (const f of fields) {
      const read = f.read();
      if (read.error) errors.push({ path: f.key, message: read.error });
      else if (read.value !== undefined) args[f.key] = read.value;
    }
    if (errors.length === 0) errors.push(...validate(schema, args));
    return { args, errors };
  }

  /**
   * Client or server field errors, beside their fields; paths may be `args.x.0`, `/x/0` or `x`.
   * @param {FieldError[]} errors
   */
  function showErrors(errors) {
    /** @type {Map<string, string[]>} */
    const byField = new Map(fields.map((f) => [f.key, []]));
    /** @type {string[]} */
    const general = [];
    for (const e of errors) {
      const { key, rest } = errorKey(e.path, byField);
      const message = rest.length > 0 ? `${rest.join('.')} ${e.message}` : e.message;
      const messages = key === undefined ? undefined : byField.get(key);
      if (messages) messages.push(message);
      else general.push(e.path ? `${e.path}: ${e.message}` : e.message);
    }
    for (const f of fields) f.showError(byField.get(f.key) ?? []);
    generalError.textContent = general.join('; ');
  }

  return {
    element: h(
      'div',
      { class: 'args-editor' },
      fields.map((f) => f.element),
      generalError,
    ),
    current,
    /**
     * What differs from the proposal, each change with the problems of its field: a value that
     * is not valid is shown as such, never as an accepted change.
     */
    changes() {
      const { args, errors } = current();
      const keys = new Set(fields.map((f) => f.key));
      /** @type {Map<string, string[]>} */
      const problems = new Map();
      for (const e of errors) {
        const { key, rest } = errorKey(e.path, keys);
        if (key === undefined) continue;
        problems.set(key, [
          ...(problems.get(key) ?? []),
          rest.length ? `${rest.join('.')} ${e.message}` : e.message,
        ]);
      }
      /** @type {Change[]} */
      const changes = diffArgs(proposed, args).map((c) =>
        problems.has(c.path) ? { ...c, invalid: problems.get(c.path) } : c,
      );
      // A field that does not even read (not a number, not JSON) is a change too: its text, marked invalid.
      for (const f of fields) {
        if (!problems.has(f.key) || changes.some((c) => c.path === f.key)) continue;
        if (f.read().error)
          changes.push({
            path: f.key,
            before: proposed[f.key],
            text: f.text(),
            invalid: problems.get(f.key),
          });
      }
      return { args, errors, changes };
    },
    showErrors,
    reset() {
      for (const f of fields) f.set(proposed[f.key]);
      showErrors([]);
    },
  };
}

/**
 * Top-level changes between the proposal and the edit, as the workflow records them.
 * @param {JsonObject} before
 * @param {JsonObject} after
 * @returns {Change[]}
 */
export function diffArgs(before, after) {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return keys
    .filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]))
    .map((key) => ({ path: key, before: before[key], after: after[key] }));
}

/**
 * Changes as `path: before → after`. A change with `invalid` problems is shown as not valid (red,
 * wavy-underlined, with why), never as an accepted value: `text` is what the field holds when it does not
 * even read as a value.
 * @param {Change[]} changes
 * @param {{ empty?: string }} [options]
 */
export function diffView(changes, { empty = 'No changes: approving runs the call as proposed.' } = {}) {
  if (changes.length === 0) return h('p', { class: 'muted' }, empty);
  /** @param {JsonValue | undefined} value @param {string} none */
  const shown = (value, none) => (value === undefined ? none : JSON.stringify(value));
  return h(
    'ul',
    { class: 'diff', 'aria-label': 'Changes against the proposal' },
    changes.map((c) =>
      h(
        'li',
        { class: c.invalid ? 'change-invalid' : null },
        h('code', {}, c.path),
        ': ',
        h('del', {}, shown(c.before, '(absent)')),
        ' → ',
        c.invalid
          ? [
              h(
                'mark',
                { class: 'invalid-value' },
                c.text !== undefined ? c.text : shown(c.after, '(removed)'),
              ),
              h('span', { class: 'invalid-why' }, ` not valid: ${c.invalid.join('; ')}`),
            ]
          : h('ins', {}, shown(c.after, '(removed)')),
      ),
    ),
  );
}
