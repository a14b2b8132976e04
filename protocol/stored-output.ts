import { splitChangeNotes } from './change-notes.js';
import type { JsonValue } from './json.js';
import type { TranscriptMessage } from './run.js';

/**
 * What a run's transcript holds in place of a tool output its worker kept in the content store. Its
 * text is also what anyone can write (a tool, a person answering for one), so the shape alone names
 * nothing: see `storedOutputOf`.
 */
export interface StoredOutput {
  $countersign: 'stored-output';
  ref: string;
  bytes: number;
  /** The id of the store it was kept in, when that store has one; markers written before it have none. */
  store?: string;
}

const MARK = '{"$countersign":"stored-output"';

export function storedOutput(ref: string, bytes: number, store?: string): StoredOutput {
  return { $countersign: 'stored-output', ref, bytes, ...(store === undefined ? {} : { store }) };
}

/**
 * The marker `value` has the shape of, if any. The run-tool activity returns one for an output it
 * stored and never returns a tool's own output in this shape (it hands that on as text), so in the
 * workflow a tool's result of this shape is the worker's.
 */
export function markerShaped(value: JsonValue | undefined): StoredOutput | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { $countersign, ref, bytes, store } = value;
  return $countersign === 'stored-output' && typeof ref === 'string' && typeof bytes === 'number'
    ? storedOutput(ref, bytes, typeof store === 'string' ? store : undefined)
    : undefined;
}

/**
 * The one test of a stored output: a tool message whose text is a marker under a reference the run's
 * own worker wrote (`written`, the run's record, `RunState.storedOutputs`, which goes on through
 * continue-as-new). Anything else of that shape (a tool's own output, a person's answer, a marker
 * copied from another run) is the text it is: the model reads it as written, the outputs route
 * serves nothing for it, the run view shows it.
 */
export function storedOutputOf(
  message: TranscriptMessage,
  written: readonly string[] | undefined,
): StoredOutput | undefined {
  if (message.role !== 'tool' || !written?.length) return undefined;
  // A note of what people changed of the call may come first: the output is what follows it.
  const { result } = splitChangeNotes(message.content);
  if (!result.startsWith(MARK)) return undefined;
  let parsed: JsonValue;
  try {
    parsed = JSON.parse(result) as JsonValue;
  } catch {
    return undefined;
  }
  const marker = markerShaped(parsed);
  return marker && written.includes(marker.ref) ? marker : undefined;
}
