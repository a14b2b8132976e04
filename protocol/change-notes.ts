/**
 * The notes a run writes before a tool's result when people changed the call, so the model knows:
 * "(A human reviewer (lee) changed the arguments before this call ran: amount from 900 to 400.) ",
 * "(A human reviewer moved this call from step 3 to step 1 of the plan.) ". Readers that want the
 * tool's result itself (a chat stream, a stored output) take it from after them.
 */

/** How every such note begins. */
export const CHANGE_NOTE_START = '(A human reviewer ';
const CHANGE_NOTE_END = '.) ';

/**
 * A tool message split into its leading notes and the result after them. Values in a note are JSON,
 * so a note ends at the first `.) ` outside a JSON string.
 *
 * @example
 * ```ts
 * splitChangeNotes('(A human reviewer (lee) changed the arguments before this call ran: amount from 900 to 400.) {"sent":400}');
 * // { notes: ['(A human reviewer (lee) changed ... amount from 900 to 400.)'], result: '{"sent":400}' }
 * ```
 */
export function splitChangeNotes(content: string): { notes: string[]; result: string } {
  const notes: string[] = [];
  let rest = content;
  while (rest.startsWith(CHANGE_NOTE_START)) {
    const end = noteEnd(rest);
    if (end < 0) break;
    notes.push(rest.slice(0, end + CHANGE_NOTE_END.length - 1));
    rest = rest.slice(end + CHANGE_NOTE_END.length);
  }
  return { notes, result: rest };
}

function noteEnd(text: string): number {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (text.startsWith(CHANGE_NOTE_END, i)) return i;
  }
  return -1;
}
