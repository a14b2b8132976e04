import type { ToolCall, TranscriptMessage } from '../protocol/index.js';

/** The prefix of the ids the run gives steps a reviewer adds to a plan. */
const ADDED_PREFIX = 'added-';

/**
 * The model's calls, each with an id no other call of the run has: a model may repeat an id within a
 * response or reuse one from an earlier turn, and an id names a call's approvals, idempotency key
 * and result. A unique id is kept as the model gave it; a repeated one (or one shaped like the ids
 * of reviewer-added steps) gets a suffix, in the transcript too, so the model reads each answer
 * against its own call.
 */
export function distinctCallIds(calls: ToolCall[], transcript: TranscriptMessage[]): ToolCall[] {
  const used = new Set<string>();
  for (const message of transcript) {
    if (message.role === 'assistant') for (const call of message.tool_calls ?? []) used.add(call.id);
  }
  return calls.map((call) => {
    let id = call.id;
    if (used.has(id) || id.startsWith(ADDED_PREFIX) || id === '') {
      const base = id.startsWith(ADDED_PREFIX) || id === '' ? `call-${id}` : id;
      let n = 2;
      while (used.has(`${base}~${n}`)) n++;
      id = `${base}~${n}`;
    }
    used.add(id);
    return id === call.id ? call : { ...call, id };
  });
}
