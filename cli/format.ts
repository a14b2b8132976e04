import {
  requirementLines,
  visibleText,
  type ApprovalView,
  type RunEvent,
  type RunSummary,
  type TranscriptMessage,
  type UnknownAttempt,
} from '../protocol/index.js';
import { decisionList } from './decision-labels.js';

/** Human-readable output; `--json` prints the API's answers as they are instead. */

/**
 * The one way server text reaches the terminal. A run's input, a model's message, arguments and
 * descriptions are written by whoever started the run or by the model: their control characters,
 * escape sequences, bidirectional overrides and invisible format characters are printed as
 * escapes (`\u001b`, `\u202e`), never obeyed, so they cannot move the cursor, clear or recolour
 * lines, or reorder what the approver reads. One-line fields show line breaks as `\n` too, so
 * they cannot forge the lines after them; `block` keeps the line breaks of a block of text.
 */
export function terminalText(text: string, { block = false }: { block?: boolean } = {}): string {
  return visibleText(text, { keepLines: block });
}

const line = (text: string) => terminalText(text);
const block = (text: string) => terminalText(text, { block: true });

/** A table of one-line cells. */
export function table(rows: string[][]): string {
  rows = rows.map((row) => row.map(line));
  if (rows.length === 0) return '';
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '))
    .join('\n');
}

export function runsTable(runs: RunSummary[]): string {
  if (runs.length === 0) return 'No runs.';
  return table([
    ['RUN', 'AGENT', 'STATUS', 'PENDING', 'STARTED'],
    ...runs.map((r) => [r.runId, r.agent, r.status, String(r.pending), r.startedAt]),
  ]);
}

/** What an approval asks, in a word or two: an outcome approval must stand out from a call's. */
export const KIND_LABEL: Record<ApprovalView['kind'], string> = {
  call: 'call',
  plan: 'plan',
  result: 'result review',
  question: 'question',
  outcome: 'outcome unknown',
  secret: 'secret',
};

type ApprovalLine = Pick<
  ApprovalView,
  'trackingId' | 'agent' | 'tool' | 'status' | 'kind' | 'description' | 'deadline'
>;

export function approvalsTable(approvals: ApprovalLine[]): string {
  if (approvals.length === 0) return 'No approvals.';
  return table([
    ['TRACKING ID', 'AGENT', 'TOOL', 'STATUS', 'KIND', 'DEADLINE', 'WHAT'],
    ...approvals.map((a) => [
      a.trackingId,
      a.agent,
      a.tool,
      a.status,
      KIND_LABEL[a.kind] ?? a.kind,
      a.deadline,
      a.description,
    ]),
  ]);
}

const indent = (text: string, by = '    ') => text.replace(/^/gm, by);

export function transcriptLines(transcript: TranscriptMessage[]): string[] {
  const lines: string[] = [];
  for (const m of transcript) {
    if (m.role === 'system') continue;
    if (m.role === 'tool') {
      lines.push(`  tool (${line(m.tool_call_id)}):`, indent(block(m.content)));
    } else if (m.role === 'assistant') {
      if (m.content) lines.push('  assistant:', indent(block(m.content)));
      for (const call of m.tool_calls ?? [])
        lines.push(`  assistant calls ${line(call.function.name)} ${line(call.function.arguments)}`);
    } else {
      lines.push(`  ${line(m.role)}:`, indent(block(m.content)));
    }
  }
  return lines;
}

/** The attempt a `tool.unknown` event records, if its data is one. */
function unknownOf(data: unknown): { attempt: number; reason: string } | undefined {
  const d = data as Partial<UnknownAttempt> | null | undefined;
  return typeof d?.attempt === 'number' && typeof d.reason === 'string'
    ? { attempt: d.attempt, reason: d.reason }
    : undefined;
}

export function eventLine(e: RunEvent): string {
  const parts = [e.at, e.type];
  if (e.trackingId) parts.push(e.trackingId);
  if (e.tool) parts.push(e.tool);
  if (e.decision) parts.push(e.decision);
  if (e.status) parts.push(`-> ${e.status}`);
  if (e.actor) parts.push(`by ${e.actor}${e.channel ? ` via ${e.channel}` : ''}`);
  if (e.code) parts.push(`[${e.code}]`);
  if (e.reason) parts.push(`(${e.reason})`);
  const unknown = e.type === 'tool.unknown' ? unknownOf(e.data) : undefined;
  if (unknown) parts.push(`(attempt ${unknown.attempt}: ${unknown.reason})`);
  if (e.message) parts.push(`"${e.message}"`);
  if (e.diff && e.diff.length > 0) {
    parts.push(
      `changes: ${e.diff.map((d) => `${d.path}: ${JSON.stringify(d.before)} -> ${JSON.stringify(d.after)}`).join(', ')}`,
    );
  }
  return line(parts.join(' '));
}

export interface RunDetail {
  runId: string;
  agent: string;
  status: string;
  input: string;
  requester?: string;
  transcript: TranscriptMessage[];
  pending: ApprovalView[];
  audit: RunEvent[];
  output?: string;
}

export function runDetail(run: RunDetail): string {
  const lines = [
    `Run ${line(run.runId)}`,
    `  agent:  ${line(run.agent)}`,
    `  status: ${line(run.status)}`,
    ...(run.requester ? [`  requester: ${line(run.requester)}`] : []),
    '',
    'Transcript:',
    ...transcriptLines(run.transcript),
  ];
  if (run.pending.length > 0) {
    lines.push(
      '',
      'Waiting for:',
      ...run.pending.map((a) => `  ${line(a.trackingId)}  ${line(a.tool)}  ${line(a.description)}`),
    );
  }
  if (run.audit.length > 0) lines.push('', 'Audit:', ...run.audit.map((e) => `  ${eventLine(e)}`));
  if (run.output !== undefined) lines.push('', 'Output:', indent(block(run.output), '  '));
  return lines.join('\n');
}

const OUTCOME_WHY = [
  'Its attempt ended without the tool saying how. It runs again only if someone says it did not',
  'happen; with no answer by the deadline, it failed.',
];

const SECRET_WHY = 'A person supplies it for the tool alone: nobody, the model included, sees it again.';

/**
 * How to supply a secret from the terminal: never as an argument, which `ps` and the shell's
 * history keep.
 */
export function secretHowTo(trackingId: string): string[] {
  const id = line(trackingId);
  return [
    `  to supply it: countersign respond ${id}  (asks for it; what you type is not shown)`,
    `  from a script: printf %s "$VALUE" | countersign respond ${id}  (reads the first line of stdin)`,
  ];
}

/** What is known of an attempt whose outcome is unknown; the step and reason are the tool's text. */
function attemptLines(attempt: UnknownAttempt | undefined): string[] {
  if (!attempt) return ['  attempt: nothing is known of it'];
  const where = [
    attempt.startedAt ? ` started ${attempt.startedAt}` : '',
    attempt.worker ? ` on ${attempt.worker}` : '',
  ].join('');
  return [
    line(`  attempt ${attempt.attempt}:${where || ' (start not recorded)'}`),
    `  last step: ${attempt.progress ? `${line(attempt.progress.step)} (at ${line(attempt.progress.at)})` : 'none reported'}`,
    `  why unknown: ${line(attempt.reason)}`,
  ];
}

/** One approval with the context a person needs to decide it. */
export function approvalCard(
  a: ApprovalView,
  run?: { input: string; transcript: TranscriptMessage[] },
): string {
  // One line per field: a field's own line breaks show as \n, so it cannot forge the lines after
  // it (the arguments the approver is about to approve).
  const lines = [
    line(`Approval ${a.trackingId}  (${KIND_LABEL[a.kind] ?? a.kind}, run ${a.runId}, agent ${a.agent})`),
    `  ${line(a.description)}`,
  ];
  if (a.kind === 'outcome') lines.push(...OUTCOME_WHY.map((why) => `  ${why}`));
  if (a.kind === 'secret') lines.push(`  ${SECRET_WHY}`);
  if (run) {
    lines.push(`  request: ${line(run.input)}`);
    const said = [...run.transcript].reverse().find((m) => m.role === 'assistant' && m.content);
    if (said && said.role === 'assistant' && said.content) lines.push(`  model said: ${line(said.content)}`);
  }
  if (a.question) lines.push(`  question: ${line(a.question)}`);
  if (a.plan)
    lines.push(
      '  plan:',
      ...a.plan.map(
        (s, i) =>
          `    ${i + 1}. ${line(s.tool)} ${line(JSON.stringify(s.args))}${s.addedBy ? ` (added by ${line(s.addedBy)})` : ''}`,
      ),
    );
  else if (a.kind === 'outcome')
    lines.push(
      `  ${line(a.tool)} arguments it ran with:`,
      indent(block(JSON.stringify(a.args, null, 2))),
      ...attemptLines(a.attempt),
    );
  else if (a.kind === 'secret') {
    lines.push(
      line(
        `  secret: ${a.secret?.label ?? '(not named)'}${a.secret ? ` (${a.secret.name})` : ''}, for ${a.tool}`,
      ),
    );
    // What it unlocks: the call it is for (one the model asked for by name has none).
    if (Object.keys(a.args).length > 0)
      lines.push(`  ${line(a.tool)} arguments:`, indent(block(JSON.stringify(a.args, null, 2))));
  } else if (a.kind !== 'question')
    lines.push(`  ${line(a.tool)} arguments:`, indent(block(JSON.stringify(a.args, null, 2))));
  if (a.result !== undefined)
    lines.push('  result for review:', indent(block(JSON.stringify(a.result, null, 2))));
  if (a.editableFields) lines.push(`  editable: ${line(a.editableFields.join(', '))}`);
  lines.push(line(`  revision ${a.revision}; decisions: ${decisionList(a)}; deadline ${a.deadline}`));
  lines.push('  needs:', ...requirementLines(a).map((need) => `    ${line(need)}`));
  if (a.approvals.length > 0)
    lines.push(`  approved so far by: ${line(a.approvals.map((s) => s.approver).join(', '))}`);
  return lines.join('\n');
}
