import type { ViewsOpenArguments } from '@slack/web-api';
import type { ButtonValue } from '../../notify/slack/card.js';
import {
  toPointer,
  unescapePointer,
  visibleText,
  type ApprovalView,
  type FieldError,
  type JsonObject,
  type JsonValue,
} from '../../protocol/index.js';
import { modalMetadata } from './modal-context.js';
import type { ViewSubmission } from './payloads.js';

type Modal = Extract<ViewsOpenArguments['view'], { type: 'modal' }>;
type ModalBlock = Modal['blocks'][number];

export const EDIT_CALLBACK = 'countersign_edit';
/** Each argument's input block is `arg:<name>`, so a submission says which argument a value is for. */
const FIELD_BLOCK = 'arg:';
const NOTE_BLOCK = 'note';
const NOTE_INPUT = 'message';

/** Slack's limits: a text input's length, a block id's, a modal's blocks, a select's options. */
const INPUT_MAX = 3000;
const BLOCK_ID_MAX = 255;
const FIELDS_MAX = 90;
const OPTIONS_MAX = 100;
const OPTION_TEXT_MAX = 75;
const OPTION_VALUE_MAX = 150;
const LABEL_MAX = 2000;
const ERROR_MAX = 1000;

/** How an argument is typed in. It is the input's action id, by which its submission is read back. */
type Kind = 'text' | 'number' | 'choice' | 'json';

/** The part of a property's JSON Schema the form goes by, as the inbox's editor does. */
interface Property {
  type?: string | string[];
  enum?: unknown[];
  description?: string;
  maxLength?: number;
}

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
const plain = (text: string, max = INPUT_MAX, keepLines = false) => ({
  type: 'plain_text' as const,
  text: cut(visibleText(text, { keepLines }), max),
  emoji: false,
});

function typeOf(schema: Property | undefined): string | undefined {
  const types = (Array.isArray(schema?.type) ? schema.type : [schema?.type]).filter((t) => t !== 'null');
  return types.length === 1 ? types[0] : undefined;
}

/** A choice as a select shows it: a string as itself, anything else as JSON. */
const optionOf = (choice: JsonValue) => ({
  text: plain(typeof choice === 'string' ? choice : JSON.stringify(choice), OPTION_TEXT_MAX),
  value: JSON.stringify(choice),
});

function choicesOf(schema: Property | undefined): JsonValue[] | undefined {
  if (Array.isArray(schema?.enum) && schema.enum.length > 0) return schema.enum as JsonValue[];
  return typeOf(schema) === 'boolean' ? [true, false] : undefined;
}

/** A string that needs more than one line: a one-line input would drop its line breaks. */
function long(schema: Property | undefined, value: JsonValue | undefined): boolean {
  if ((schema?.maxLength ?? 0) > 200) return true;
  return typeof value === 'string' && (value.includes('\n') || value.length > 120);
}

/**
 * The input for one argument, prefilled with its current value: a number as a number input, a
 * string as a text input, an enum or a boolean as a select, anything else (or a value its schema
 * does not describe) as JSON. Undefined when Slack cannot hold it: it is edited in the inbox.
 */
function inputOf(
  key: string,
  schema: Property | undefined,
  required: boolean,
  value: JsonValue | undefined,
): ModalBlock | undefined {
  if (FIELD_BLOCK.length + key.length > BLOCK_ID_MAX) return undefined;
  const type = typeOf(schema);
  const choices = choicesOf(schema)?.map(optionOf);
  const current = value === undefined ? undefined : JSON.stringify(value);
  let element;
  if (
    choices &&
    choices.length <= OPTIONS_MAX &&
    choices.every((c) => c.value.length <= OPTION_VALUE_MAX) &&
    (current === undefined || choices.some((c) => c.value === current))
  ) {
    const initial = choices.find((c) => c.value === current);
    element = {
      type: 'static_select' as const,
      action_id: 'choice' satisfies Kind,
      options: choices,
      ...(initial ? { initial_option: initial } : {}),
    };
  } else if (
    (type === 'number' || type === 'integer') &&
    (value === undefined || (typeof value === 'number' && (type === 'number' || Number.isInteger(value))))
  ) {
    element = {
      type: 'number_input' as const,
      action_id: 'number' satisfies Kind,
      is_decimal_allowed: type === 'number',
      ...(value === undefined ? {} : { initial_value: String(value) }),
    };
  } else if (type === 'string' && (value === undefined || typeof value === 'string')) {
    if ((value?.length ?? 0) > INPUT_MAX) return undefined;
    element = {
      type: 'plain_text_input' as const,
      action_id: 'text' satisfies Kind,
      multiline: long(schema, value),
      max_length: INPUT_MAX,
      ...(value ? { initial_value: value } : {}),
    };
  } else {
    const text = value === undefined ? undefined : JSON.stringify(value, null, 2);
    if ((text?.length ?? 0) > INPUT_MAX) return undefined;
    element = {
      type: 'plain_text_input' as const,
      action_id: 'json' satisfies Kind,
      multiline: true,
      max_length: INPUT_MAX,
      placeholder: plain('JSON', 150),
      ...(text ? { initial_value: text } : {}),
    };
  }
  return {
    type: 'input',
    block_id: `${FIELD_BLOCK}${key}`,
    optional: !required,
    label: plain(key, LABEL_MAX),
    ...(schema?.description ? { hint: plain(schema.description, LABEL_MAX) } : {}),
    element,
  };
}

/**
 * The modal Edit opens for a call: one input per argument its policy lets people edit, prefilled,
 * the others listed as they stay, and an optional note. Sending it is an edit of this revision.
 * Undefined when no argument can be edited in Slack.
 */
export function editModal(
  approval: ApprovalView,
  button: ButtonValue,
  responseUrl: string | undefined,
): Modal | undefined {
  const schema = approval.schema as { properties?: Record<string, Property>; required?: string[] };
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const keys = [...new Set([...Object.keys(properties), ...Object.keys(approval.args)])];
  const inputs: ModalBlock[] = [];
  const kept: string[] = [];
  for (const key of keys) {
    const editable = !approval.editableFields || approval.editableFields.includes(key);
    const input =
      editable && inputs.length < FIELDS_MAX
        ? inputOf(key, properties[key], required.has(key), approval.args[key])
        : undefined;
    if (input) inputs.push(input);
    else if (key in approval.args)
      kept.push(`${key}: ${JSON.stringify(approval.args[key])}${editable ? ' (edit it in the inbox)' : ''}`);
  }
  if (inputs.length === 0) return undefined;
  return {
    type: 'modal',
    callback_id: EDIT_CALLBACK,
    title: plain('Edit the call', 24),
    submit: plain('Approve as edited', 24),
    close: plain('Cancel', 24),
    private_metadata: modalMetadata(button, responseUrl),
    blocks: [
      {
        type: 'section',
        text: plain(
          `Edit revision ${button.revision} of ${approval.tool} (${button.trackingId}). Sending it approves the edited call as you; the policy judges it again and may ask for more approvers.`,
        ),
      },
      ...inputs,
      ...(kept.length > 0
        ? [{ type: 'section' as const, text: plain(`Not edited here:\n${kept.join('\n')}`, INPUT_MAX, true) }]
        : []),
      {
        type: 'input',
        block_id: NOTE_BLOCK,
        optional: true,
        label: plain('Why (kept with the edit)'),
        element: { type: 'plain_text_input', action_id: NOTE_INPUT, multiline: true, max_length: 4000 },
      },
    ],
  };
}

type InputState = ViewSubmission['view']['state']['values'][string][string];

/** One input's value (undefined: the argument is left out), or why it cannot be one. */
function readInput(
  kind: string,
  state: InputState,
  before: JsonValue | undefined,
): { value?: JsonValue; error?: string } | undefined {
  const text = state.value ?? '';
  switch (kind) {
    case 'choice':
      return {
        value: state.selected_option ? (JSON.parse(state.selected_option.value) as JsonValue) : undefined,
      };
    case 'number': {
      if (text.trim() === '') return { value: undefined };
      const number = Number(text);
      return Number.isFinite(number) ? { value: number } : { error: 'must be a number' };
    }
    case 'text':
      // Emptied, a string argument is the empty string; one that was absent stays absent.
      return { value: text === '' && typeof before !== 'string' ? undefined : text };
    case 'json':
      if (text.trim() === '') return { value: undefined };
      try {
        return { value: JSON.parse(text) as JsonValue };
      } catch {
        return { error: 'is not valid JSON' };
      }
    default:
      return undefined;
  }
}

/**
 * The whole arguments a submitted edit sends, as an edit in every channel does: the call's current
 * ones with the modal's values put in, and what could not be read as a value (a JSON that is none).
 */
export function readEdit(
  view: ViewSubmission['view'],
  current: JsonObject,
): { args: JsonObject; errors: FieldError[]; message?: string } {
  const args: JsonObject = { ...current };
  const errors: FieldError[] = [];
  for (const [block, inputs] of Object.entries(view.state.values)) {
    if (!block.startsWith(FIELD_BLOCK)) continue;
    const key = block.slice(FIELD_BLOCK.length);
    for (const [kind, state] of Object.entries(inputs)) {
      let read;
      try {
        read = readInput(kind, state, current[key]);
      } catch {
        read = { error: 'is not one of the choices' };
      }
      if (read?.error) errors.push({ path: toPointer(['args', key]), message: read.error });
      else if (read && read.value === undefined) delete args[key];
      else if (read) args[key] = read.value!;
    }
  }
  const message = view.state.values[NOTE_BLOCK]?.[NOTE_INPUT]?.value?.trim();
  return { args, errors, ...(message ? { message } : {}) };
}

/**
 * Field errors as the modal shows them (`response_action: 'errors'`): each under its argument's
 * input, and one the form has no input for under the first, with its path.
 */
export function modalErrors(view: ViewSubmission['view'], errors: FieldError[]): Record<string, string> {
  const blocks = Object.keys(view.state.values).filter((b) => b.startsWith(FIELD_BLOCK));
  const first = blocks[0] ?? NOTE_BLOCK;
  const shown = new Map<string, string[]>();
  for (const { path, message } of errors) {
    const parts = path.split('/').slice(1).map(unescapePointer);
    if (parts[0] === 'args') parts.shift();
    const block = parts.length > 0 ? `${FIELD_BLOCK}${parts[0]}` : undefined;
    const mine = block !== undefined && blocks.includes(block);
    const rest = parts.slice(1);
    const text = mine
      ? rest.length > 0
        ? `${rest.join('.')}: ${message}`
        : message
      : `${path || 'arguments'}: ${message}`;
    const at = mine ? block : first;
    shown.set(at, [...(shown.get(at) ?? []), text]);
  }
  return Object.fromEntries([...shown].map(([block, texts]) => [block, cut(texts.join('; '), ERROR_MAX)]));
}
