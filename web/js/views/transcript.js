// @ts-check
import { diffArgs, diffView } from '../args-editor.js';
import { h, json } from '../dom.js';
import { outcomeMarkLine } from './outcome.js';
import { secretMarkLine } from './secret.js';
import { storedOutputView } from './stored-output.js';

/** @typedef {import('../../types/inbox.js').ApprovalSummary} ApprovalSummary */
/** @typedef {import('../../types/inbox.js').Change} Change */
/** @typedef {import('../../types/inbox.js').JsonObject} JsonObject */
/** @typedef {import('../../types/inbox.js').TranscriptMessage} TranscriptMessage */
/** @typedef {{ by: string[], changes: Change[] }} Edit */

/** @param {string} text */
function args(text) {
  try {
    return json(JSON.parse(text));
  } catch {
    return text;
  }
}

/**
 * @param {string} text
 * @returns {JsonObject | null}
 */
function parsed(text) {
  try {
    const value = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * The calls a human changed before they ran, by tool call id: who, and what changed between the
 * arguments the model proposed and those that ran (an edited call, or a step of an edited plan).
 * @param {TranscriptMessage[]} messages
 * @param {ApprovalSummary[] | undefined} approvals
 */
function humanEdits(messages, approvals) {
  /** @type {Map<string, JsonObject | null>} */
  const proposed = new Map();
  for (const m of messages)
    for (const c of m.role === 'assistant' ? (m.tool_calls ?? []) : [])
      proposed.set(c.id, parsed(c.function.arguments));
  /** @type {Map<string, Edit>} */
  const edits = new Map();
  for (const a of approvals ?? []) {
    const o = a.outcome;
    if (o?.status !== 'edited') continue;
    if (a.kind === 'call' && o.args) {
      const before = proposed.get(a.toolCallId) ?? a.args;
      edits.set(a.toolCallId, { by: o.by, changes: diffArgs(before, o.args) });
    } else if (a.kind === 'plan' && o.plan) {
      for (const step of o.plan) {
        const before = step.toolCallId ? proposed.get(step.toolCallId) : undefined;
        if (!step.toolCallId || !before) continue;
        const changes = diffArgs(before, step.args);
        if (changes.length > 0) edits.set(step.toolCallId, { by: o.by, changes });
      }
    }
  }
  return edits;
}

/**
 * The approvals of one kind a call went through, a line each (`line`), with the decider's message.
 * @param {ApprovalSummary[] | undefined} approvals
 * @param {string} toolCallId
 * @param {string} kind
 * @param {(a: ApprovalSummary) => import('../../types/inbox.js').Child} line
 */
function approvalMark(approvals, toolCallId, kind, line) {
  const asked = (approvals ?? []).filter((a) => a.kind === kind && a.toolCallId === toolCallId);
  if (asked.length === 0) return null;
  return h(
    'div',
    { class: `${kind}-mark`, role: 'note' },
    asked.map((a) => h('p', {}, line(a), a.outcome?.message ? [' — ', h('q', {}, a.outcome.message)] : null)),
  );
}

/** @param {Edit} edit */
function editMark(edit) {
  return h(
    'div',
    { class: 'human-edit', role: 'note' },
    h(
      'strong',
      {},
      `✎ Arguments edited by ${edit.by.length ? edit.by.join(', ') : 'a human'} before the call ran`,
    ),
    diffView(edit.changes, { empty: 'The arguments ran as the model proposed them.' }),
  );
}

/**
 * The run's conversation, as text only: what the user asked, what the model said and called, what
 * tools answered (an output kept in the content store, on request); and, between a call and its
 * result, where a human changed its arguments, said what happened when nobody knew, or supplied
 * a secret it used.
 * @param {TranscriptMessage[]} messages
 * @param {{ runId: string, highlight?: string, approvals?: ApprovalSummary[], storedOutputs?: string[] }} options
 */
export function transcriptView(messages, { runId, highlight, approvals, storedOutputs }) {
  const edits = humanEdits(messages, approvals);
  return h(
    'ol',
    { class: 'transcript' },
    messages.map((m) => {
      if (m.role === 'assistant') {
        const calls = (m.tool_calls ?? []).map((c) =>
          h(
            'div',
            { class: `call${c.id === highlight ? ' highlight' : ''}` },
            h('code', {}, c.function.name),
            h('pre', {}, args(c.function.arguments)),
          ),
        );
        return h(
          'li',
          { class: 'msg msg-assistant' },
          h('span', { class: 'role' }, 'Model'),
          m.content ? h('p', { class: 'words' }, m.content) : null,
          calls,
        );
      }
      if (m.role === 'tool') {
        const edit = edits.get(m.tool_call_id);
        return h(
          'li',
          { class: 'msg msg-tool' },
          edit ? editMark(edit) : null,
          approvalMark(approvals, m.tool_call_id, 'outcome', outcomeMarkLine),
          approvalMark(approvals, m.tool_call_id, 'secret', secretMarkLine),
          h('span', { class: 'role' }, `Tool result (${m.tool_call_id})`),
          storedOutput(runId, m, storedOutputs) ?? h('pre', {}, m.content),
        );
      }
      if (m.role === 'system') {
        return h(
          'li',
          { class: 'msg msg-system' },
          h('details', {}, h('summary', {}, 'Instructions'), h('p', {}, m.content)),
        );
      }
      return h('li', { class: 'msg msg-user' }, h('span', { class: 'role' }, 'User'), h('p', {}, m.content));
    }),
  );
}

/**
 * What the model said when it proposed this call.
 * @param {TranscriptMessage[]} messages
 * @param {string} toolCallId
 */
export function modelWords(messages, toolCallId) {
  const turn = messages.find(
    (m) => m.role === 'assistant' && (m.tool_calls ?? []).some((c) => c.id === toolCallId),
  );
  return turn?.content ?? '';
}

/**
 * A tool output the worker kept in its content store: the run holds a marker naming it, under a
 * reference the run records as its worker's (`storedOutputs`). The browser's copy of the API's one
 * test (protocol/stored-output.ts): any other text of that shape is shown as the text it is.
 * @param {string} runId
 * @param {{ tool_call_id: string, content: string }} message
 * @param {string[]} [storedOutputs]
 */
function storedOutput(runId, message, storedOutputs = []) {
  if (!message.content.startsWith('{"$countersign":"stored-output"')) return null;
  try {
    const { $countersign, ref, bytes } = JSON.parse(message.content);
    if ($countersign !== 'stored-output' || typeof ref !== 'string' || typeof bytes !== 'number') return null;
    if (!storedOutputs.includes(ref)) return null;
    return storedOutputView(runId, { ref, bytes }, message.tool_call_id);
  } catch {
    return null;
  }
}
