import type { ArgChange, FieldError, JsonValue } from '../protocol/index.js';
import { CHANGE_NOTE_START } from '../protocol/change-notes.js';
import { unescapePointer } from '../protocol/json-pointer.js';

/** The text of the tool messages the workflow writes in a tool's place, so the model knows what happened. */

export function resultMessage(result: JsonValue): string {
  return typeof result === 'string' ? result : JSON.stringify(result);
}

export function rejectedMessage(tool: string, by: string[], message: string | undefined): string {
  const who = by.length > 0 ? by.join(', ') : 'a human reviewer';
  const why = message ? ` Their message: "${message}".` : ' They gave no reason.';
  return `A human reviewer (${who}) refused this call to ${tool}; it was not run.${why} Do not retry this call; adapt your plan or tell the user.`;
}

export function expiredMessage(tool: string): string {
  return `No human decided on this call to ${tool} before its deadline, so it was refused and not run. Do not retry this call; tell the user it needs approval.`;
}

export function deniedMessage(tool: string): string {
  return `Policy refuses this call to ${tool} with these arguments; it was not run. Do not retry it; tell the user it is not allowed.`;
}

export function failedMessage(tool: string, error: string): string {
  return `The tool ${tool} failed: ${error}`;
}

export function invalidArgsMessage(tool: string, problems: FieldError[] | string): string {
  const detail =
    typeof problems === 'string'
      ? problems
      : problems.map((p) => `${p.path || '(arguments)'}: ${p.message}`).join('; ');
  return `The arguments for ${tool} are invalid (${detail}); nothing was run. Correct them and call again.`;
}

export function unknownToolMessage(tool: string): string {
  return `There is no tool named ${tool}; nothing was run.`;
}

export function cutFromPlanMessage(tool: string, message: string | undefined): string {
  const why = message ? ` Their message: "${message}".` : '';
  return `A human reviewer removed this call to ${tool} from the plan; it was not run.${why} Do not retry it.`;
}

export function planRejectedMessage(tool: string, by: string[], message: string | undefined): string {
  return rejectedMessage(tool, by, message).replace(
    'refused this call',
    'refused the plan containing this call',
  );
}

export function addedStepMessage(result: string): string {
  return `(A human reviewer added this call to the plan.) ${result}`;
}

export function resultWithheldMessage(tool: string, by: string[], message: string | undefined): string {
  const who = by.length > 0 ? by.join(', ') : 'a human reviewer';
  const why = message ? ` Their message: "${message}".` : '';
  return `The call to ${tool} ran, but a human reviewer (${who}) withheld its result.${why} Do not run it again.`;
}

export function unansweredMessage(): string {
  return 'No human answered this question before its deadline. Continue without the answer or tell the user.';
}

/** A value in a change note is cut here, so a long string a person pasted does not flood the context. */
const NOTE_VALUE_CHARS = 200;
/** Changes listed in one note; the rest are counted. */
const NOTE_CHANGES = 10;

/**
 * The note before the result of a call a person edited, so the model does not propose its original
 * call again: "(A human reviewer (lee) changed the arguments before this call ran: amount from 900 to
 * 400.) <result>". Arguments hold no secret values (secrets reach the tool sealed, beside them).
 */
export function editedCallMessage(by: string[], diff: ArgChange[], result: string): string {
  if (diff.length === 0) return result;
  const who = by.length > 0 ? by.map(outsideQuotes).join(', ') : 'a human reviewer';
  const listed = diff.slice(0, NOTE_CHANGES).map(describeChange);
  if (diff.length > NOTE_CHANGES) listed.push(`and ${diff.length - NOTE_CHANGES} more changes`);
  return `${CHANGE_NOTE_START}(${who}) changed the arguments before this call ran: ${listed.join('; ')}.) ${result}`;
}

/** The note before the result of a plan step a person moved: step numbers count from 1. */
export function movedStepMessage(from: number, to: number, result: string): string {
  return `${CHANGE_NOTE_START}moved this call from step ${from} to step ${to} of the plan.) ${result}`;
}

/** "amount from 900 to 400", "note set to \"rent\"", "memo removed (was \"x\")" */
function describeChange(change: ArgChange): string {
  const field =
    change.path === ''
      ? 'the arguments'
      : outsideQuotes(change.path.slice(1).split('/').map(unescapePointer).join('.'));
  if (change.before === undefined) return `${field} set to ${shortValue(change.after ?? null)}`;
  if (change.after === undefined) return `${field} removed (was ${shortValue(change.before)})`;
  return `${field} from ${shortValue(change.before)} to ${shortValue(change.after)}`;
}

/** Text outside a note's JSON values holds no `"`, so readers find where the note ends (splitChangeNotes). */
const outsideQuotes = (text: string) => text.replaceAll('"', "'");

function shortValue(value: JsonValue): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > NOTE_VALUE_CHARS ? `${value.slice(0, NOTE_VALUE_CHARS)}…` : value);
  const text = JSON.stringify(value);
  if (text.length <= NOTE_VALUE_CHARS) return text;
  // Cut inside a string, the string is closed, so a reader finds where the note ends.
  const cut = text.slice(0, NOTE_VALUE_CHARS);
  return insideString(cut) ? `${cut}…"` : `${cut}…`;
}

function insideString(json: string): boolean {
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    if (inString && json[i] === '\\') i++;
    else if (json[i] === '"') inString = !inString;
  }
  return inString;
}
