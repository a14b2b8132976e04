import { h, json } from './dom.js';
import { validate } from './validate.js';

let counter = 0;

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

/** One labelled control per top-level argument, with its error line and its current value. */
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
  let control;
  if (kind === 'enum') {
    control = h(
      'select',
      common,
      schema.enum.map((option, i) => h('option', { value: String(i) }, JSON.stringify(option))),
    );
  } else if (kind === 'boolean') {
    control = h('input', { ...common, type: 'checkbox' });
  } else if (kind === 'number') {
    control = h('input', {
      ...common,
      type: 'number',
      step: schema.type === 'integer' ? '1' : 'any',
      inputmode: 'decimal',
    });
  } else if (kind === 'string' && !(schema.maxLength > 200)) {
    control = h('input', { ...common, type: 'text', autocomplete: 'off' });
  } else {
    control = h('textarea', { ...common, rows: kind === 'json' ? 4 : 3, spellcheck: 'false' });
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

  function set(value) {
    if (kind === 'enum')
      control.value = String(
        Math.max(
          0,
          schema.enum.findIndex((o) => JSON.stringify(o) === JSON.stringify(value)),
        ),
      );
    else if (kind === 'boolean') control.checked = value === true;
    else if (kind === 'number') control.value = value === undefined ? '' : String(value);
    else if (kind === 'string')
      control.value = value === undefined ? '' : typeof value === 'string' ? value : json(value);
    else control.value = value === undefined ? '' : json(value);
  }

  /** `{ value }` or `{ error }`; an empty optional control is an absent argument. */
  function read() {
    if (kind === 'enum') return { value: schema.enum[Number(control.value)] };
    if (kind === 'boolean') return { value: control.checked };
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

  function showError(messages) {
    error.textContent = messages.join('; ');
    control.setAttribute('aria-invalid', messages.length > 0 ? 'true' : 'false');
  }

  set(proposedValue);
  return { key, element: h('div', { class: 'field' }, label, hint, control, error), set, read, showError };
}

/**
 * The arguments editor for a proposed call, generated from the tool's JSON Schema: inline
 * validation, a diff against the proposal, and reset. `editableFields` locks the others.
 */
export function argsEditor({ schema, proposed, editableFields, onChange }) {
  const properties = schema?.properties ?? {};
  const required = new Set(schema?.required ?? []);
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

  function current() {
    const args = {};
    const errors = [];
    for (const f of fields) {
      const read = f.read();
      if (read.error) errors.push({ path: f.key, message: read.error });
      else if (read.value !== undefined) args[f.key] = read.value;
    }
    if (errors.length === 0) errors.push(...validate(schema, args));
    return { args, errors };
  }

  /** Client or server field errors, beside their fields; paths may be `args.x.0`, `/x/0` or `x`. */
  function showErrors(errors) {
    const byField = new Map(fields.map((f) => [f.key, []]));
    const general = [];
    for (const e of errors) {
      const parts = String(e.path ?? '')
        .split(/[./]/)
        .filter(Boolean);
      if (parts[0] === 'args' && !byField.has('args')) parts.shift();
      const [key, ...rest] = parts;
      const message = rest.length > 0 ? `${rest.join('.')} ${e.message}` : e.message;
      if (key !== undefined && byField.has(key)) byField.get(key).push(message);
      else general.push(e.path ? `${e.path}: ${e.message}` : e.message);
    }
    for (const f of fields) f.showError(byField.get(f.key));
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
    showErrors,
    reset() {
      for (const f of fields) f.set(proposed[f.key]);
      showErrors([]);
    },
  };
}

/** Top-level changes between the proposal and the edit, as the workflow records them. */
export function diffArgs(before, after) {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return keys
    .filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]))
    .map((key) => ({ path: key, before: before[key], after: after[key] }));
}

export function diffView(changes) {
  if (changes.length === 0)
    return h('p', { class: 'muted' }, 'No changes: approving runs the call as proposed.');
  return h(
    'ul',
    { class: 'diff', 'aria-label': 'Changes against the proposal' },
    changes.map((c) =>
      h(
        'li',
        {},
        h('code', {}, c.path),
        ': ',
        h('del', {}, c.before === undefined ? '(absent)' : JSON.stringify(c.before)),
        ' → ',
        h('ins', {}, c.after === undefined ? '(removed)' : JSON.stringify(c.after)),
      ),
    ),
  );
}
