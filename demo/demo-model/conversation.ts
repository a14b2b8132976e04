import type { ChatCompletionRequest } from 'countersign/dev';

/** How a tool message reads to the model: a result, a human's refusal, or a failure. */
/** Why a call did not run (or its result was kept back), in the workflow's words. */
export type Refusal = 'rejected' | 'removed' | 'expired' | 'denied' | 'withheld' | 'unanswered';

/** How a tool message reads to the model: a result, a refusal, or a failure. */
export type Outcome = (
  | { kind: 'ok'; data: unknown; text: string }
  | { kind: 'refused'; reason: Refusal; message?: string; text: string }
  | { kind: 'failed'; text: string }
) & {
  /** What a reviewer changed of the call before it ran, as the note before the result says. */
  changes?: Change[];
};

/** One argument a reviewer changed: `before` or `after` is missing where they added or removed it. */
export interface Change {
  field: string;
  before?: unknown;
  after?: unknown;
}

const REFUSALS: [RegExp, Refusal][] = [
  [/removed this call .* from the plan/, 'removed'],
  [/refused (this call|the plan)/, 'rejected'],
  [/^No human decided/, 'expired'],
  [/^Policy refuses this call/, 'denied'],
  [/withheld its result/, 'withheld'],
  [/^No human answered/, 'unanswered'],
];

export interface Call {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export interface Step {
  call: Call;
  outcome: Outcome;
}

/** What the rules read: the user's request, everything done since, and the tools on offer. */
export interface Conversation {
  /** The request the run was started with. */
  request: string;
  /**
   * Corrections a person gave on resume since the model last spoke: user messages after the request,
   * which no rule reads as a request of its own (see corrections.ts).
   */
  corrections: string[];
  /** The final answer the model had given when a correction came (a run paused as it answered). */
  answered?: string;
  steps: Step[];
  /** Steps of the latest assistant turn: the results the model has not answered yet. */
  latest: Step[];
  /** Assistant turns so far; makes tool call ids unique within a run. */
  turn: number;
  tools: Set<string>;
}

/** The notes before a result: "(A human reviewer added this call to the plan.) ", and the like. */
const NOTE = /^\(A human reviewer ((?:[^"]|"(?:[^"\\]|\\.)*")*?)\.\) /;
const EDITED = /^\(A human reviewer \(.*?\) changed the arguments before this call ran: /;
/** "amount from 2500 to 2000", "memo set to \"rent\"", "memo removed (was \"x\")", values in JSON. */
const VALUE = String.raw`(-?[\d.eE+]+|true|false|null|"(?:[^"\\]|\\.)*")`;
const CHANGE = new RegExp(
  String.raw`^(\S+) (?:from ${VALUE} to ${VALUE}|set to ${VALUE}|removed \(was ${VALUE}\))(?:; |$)`,
);

/** What the workflow's note of an edit says changed; values it cut short or cannot read are left out. */
function readChanges(note: string): Change[] {
  const changes: Change[] = [];
  let rest = note.replace(EDITED, '');
  for (let match = CHANGE.exec(rest); match; match = CHANGE.exec(rest)) {
    const [whole, field, before, after, set, removed] = match;
    changes.push({
      field: field!,
      ...(before !== undefined
        ? { before: JSON.parse(before) as unknown, after: JSON.parse(after!) as unknown }
        : {}),
      ...(set !== undefined ? { after: JSON.parse(set) as unknown } : {}),
      ...(removed !== undefined ? { before: JSON.parse(removed) as unknown } : {}),
    });
    rest = rest.slice(whole.length);
  }
  return changes;
}

/**
 * Classifies a tool message by the wording the workflow uses in a tool's place (see
 * workflows/tool-messages.ts); anything else is the tool's own result. Notes of what a reviewer
 * changed (added, moved or edited the call) come first, then the result.
 */
export function classify(text: string): Outcome {
  let body = text;
  const changes: Change[] = [];
  for (let note = NOTE.exec(body); note; note = NOTE.exec(body)) {
    changes.push(...readChanges(`(A human reviewer ${note[1]!}`));
    body = body.slice(note[0].length);
  }
  const outcome = classifyResult(body);
  return changes.length > 0 ? { ...outcome, changes } : outcome;
}

function classifyResult(body: string): Outcome {
  const refusal = REFUSALS.find(([pattern]) => pattern.test(body));
  if (refusal) {
    const message = /Their message: "([\s\S]*)"\./.exec(body)?.[1];
    return { kind: 'refused', reason: refusal[1], message, text: body };
  }
  if (/^The tool \S+ failed:|^The arguments for \S+ are invalid|^There is no tool named/.test(body)) {
    return { kind: 'failed', text: body };
  }
  try {
    return { kind: 'ok', data: JSON.parse(body) as unknown, text: body };
  } catch {
    return { kind: 'ok', data: body, text: body };
  }
}

function parseArgs(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

export function readConversation(request: ChatCompletionRequest): Conversation {
  const messages = request.messages;
  const first = messages.findIndex((m) => m.role === 'user');
  const calls = new Map<string, Call>();
  const steps: Step[] = [];
  let latest: Step[] = [];
  let turn = 0;
  let lastAssistant = -1;
  for (const [index, m] of messages.entries()) {
    if (m.role === 'assistant') {
      turn++;
      lastAssistant = index;
      latest = [];
      for (const c of m.tool_calls ?? []) {
        const args =
          typeof c.function.arguments === 'string' ? parseArgs(c.function.arguments) : c.function.arguments;
        calls.set(c.id ?? '', { id: c.id ?? '', name: c.function.name, args });
      }
    } else if (m.role === 'tool') {
      const call = calls.get(m.tool_call_id) ?? { id: m.tool_call_id, name: 'unknown', args: {} };
      const step = { call, outcome: classify(m.content) };
      steps.push(step);
      latest.push(step);
    }
  }
  const corrections = messages
    .slice(Math.max(lastAssistant + 1, first + 1))
    .flatMap((m) => (m.role === 'user' && typeof m.content === 'string' ? [m.content] : []));
  const spoke = messages[lastAssistant];
  const answered =
    corrections.length > 0 && spoke?.role === 'assistant' && !spoke.tool_calls?.length
      ? (spoke.content ?? '')
      : undefined;
  const user = first >= 0 ? messages[first] : undefined;
  return {
    request: user && typeof user.content === 'string' ? user.content : '',
    corrections,
    ...(answered !== undefined ? { answered } : {}),
    steps,
    latest,
    turn,
    tools: new Set((request.tools ?? []).map((t) => t.function.name)),
  };
}
