/**
 * A run as a chat shows it, in parts no chat protocol owns: each model response (a step) with its
 * text and tool calls, each approval as asked of the person reading, waiting for others, or decided,
 * and each call's output, denial or error. Built from the run's own state alone (transcript,
 * approvals, event log), so every reader and every protocol sees the same run. The AI SDK's encoder
 * (ui-message-stream.ts) and AG-UI's (ag-ui-events.ts) turn these parts into their own events.
 */
import {
  parseTrackingId,
  type ApprovalStatus,
  type ApprovalView,
  type ApproverIdentity,
  type JsonValue,
  type RunEvent,
  type RunState,
  type RunStatus,
  type ToolCall,
} from '../../protocol/index.js';
import { repeatSignoffRefusal, roleRefusal, selfApprovalRefusal } from '../../protocol/decision-rules.js';
import { missing, requirementLines } from '../../protocol/requirements.js';
import { approvalIdOf } from './approval-id.js';
import type { ChatApproval, ChatApprovalDecided, ChatDecisionRefused } from './chat-stream-schemas.js';
import { splitChangeNotes } from '../../protocol/change-notes.js';

export type ChatPart =
  | { type: 'step'; step: number }
  | { type: 'text'; step: number; text: string }
  | { type: 'tool-call'; step: number; toolCallId: string; tool: string; input: JsonValue }
  /** The reader may decide this approval, here. */
  | { type: 'approval-requested'; step: number; approval: ChatApproval }
  /** It waits for others (another role, a quorum, someone other than the requester). */
  | { type: 'approval-waiting'; step: number; approval: ChatApproval }
  | { type: 'approval-decided'; step: number; decided: ChatApprovalDecided }
  | { type: 'tool-output'; step: number; toolCallId: string; output: JsonValue }
  /** Not run: a person refused it, nobody decided in time, or the policy denies it. */
  | { type: 'tool-denied'; step: number; toolCallId: string; reason?: string }
  | { type: 'tool-error'; step: number; toolCallId: string; error: string }
  | { type: 'refused'; refused: ChatDecisionRefused }
  | { type: 'run'; runId: string; status: RunStatus; reason?: string }
  | { type: 'error'; message: string }
  /** The stream ends: the run has, or it waits for the reader (`waitsOnReader`). */
  | { type: 'finish'; status: RunStatus; waitsOnReader: boolean };

/** The run as the reader sees it now, and whether the stream of it goes on. */
export interface RunView {
  parts: ChatPart[];
  /** An approval waits for the reader: the chat hands them the turn. */
  waitsOnReader: boolean;
  /** The run has ended: nothing more will come. */
  ended: boolean;
}

/** A part's identity across reads: a part read again under the same key replaces the one shown. */
export function partKey(part: ChatPart): string {
  switch (part.type) {
    case 'step':
    case 'text':
      return `${part.type}:${part.step}`;
    case 'tool-call':
      return `call:${part.toolCallId}`;
    case 'approval-requested':
    case 'approval-waiting':
      return `approval:${part.approval.trackingId}`;
    case 'approval-decided':
      return `approval:${part.decided.trackingId}`;
    case 'tool-output':
    case 'tool-denied':
    case 'tool-error':
      return `result:${part.toolCallId}`;
    case 'refused':
      return `refused:${part.refused.approvalId}`;
    case 'run':
    case 'error':
    case 'finish':
      return part.type;
  }
}

const ENDED: readonly RunStatus[] = ['completed', 'failed', 'cancelled'];
const REFUSED: readonly ApprovalStatus[] = ['rejected', 'expired', 'cancelled'];

/**
 * The run's parts for `reader`. `contextLength` is how many messages of its transcript are the
 * chat's earlier turns (before its own user message): those are other runs' and not shown again.
 * `decidedByReader`: the approval ids (tracking id and revision) the reader's request has just
 * decided, which a root run may still show as pending (a sub-agent's run tells its root by a signal,
 * after it took the decision): shown as waiting, not asked of the reader again; a new revision is.
 */
export function runView(
  state: RunState,
  reader: ApproverIdentity,
  contextLength: number,
  decidedByReader: ReadonlySet<string> = new Set(),
): RunView {
  const own = state.transcript.slice(contextLength + 2);
  const toolMessages = new Map<string, string>();
  // The call's output, without the notes the model is told of what people changed (the parts say that).
  for (const message of own)
    if (message.role === 'tool')
      toolMessages.set(message.tool_call_id, splitChangeNotes(message.content).result);
  const approvalsOf = groupApprovals([...state.approvals, ...subAgentApprovals(state)]);
  const parts: ChatPart[] = [];
  let waitsOnReader = false;
  let step = 0;
  /** `callShown`: an approval can be asked only beside its call, which the client must show. */
  const approvalPart = (approval: ApprovalView, at: number, callShown = true): ChatPart => {
    if (approval.status !== 'pending')
      return { type: 'approval-decided', step: at, decided: decided(approval, state.events) };
    const shown = shownOf(approval);
    if (!callShown || !mayDecideHere(approval, reader) || decidedByReader.has(approvalIdOf(approval)))
      return { type: 'approval-waiting', step: at, approval: shown };
    waitsOnReader = true;
    return { type: 'approval-requested', step: at, approval: shown };
  };
  const shownCalls = new Set<string>();
  for (const message of own) {
    if (message.role !== 'assistant') continue;
    step++;
    parts.push({ type: 'step', step });
    if (message.content) parts.push({ type: 'text', step, text: message.content });
    const calls = message.tool_calls ?? [];
    for (const call of calls) {
      shownCalls.add(call.id);
      parts.push({
        type: 'tool-call',
        step,
        toolCallId: call.id,
        tool: call.function.name,
        input: inputOf(call, approvalsOf.get(call.id) ?? []),
      });
    }
    for (const call of calls) {
      const approvals = approvalsOf.get(call.id) ?? [];
      for (const approval of approvals) parts.push(approvalPart(approval, step));
      const content = toolMessages.get(call.id);
      if (content !== undefined) parts.push(resultOf(call, content, approvals, state.events, step));
    }
  }
  // Approvals of calls the transcript does not show yet: steps a reviewer added to a plan join
  // their turn's message when the turn ends.
  for (const [toolCallId, approvals] of approvalsOf)
    if (!shownCalls.has(toolCallId))
      for (const approval of approvals) parts.push(approvalPart(approval, step, false));
  const ended = ENDED.includes(state.status);
  const finished = lastOf(state.events, (event) => event.type === 'run.finished');
  const reason = ended ? finished?.reason : undefined;
  parts.push({ type: 'run', runId: state.runId, status: state.status, ...(reason ? { reason } : {}) });
  if (state.status === 'failed') parts.push({ type: 'error', message: reason ?? 'the run failed' });
  return { parts, waitsOnReader: waitsOnReader && !ended, ended };
}

/**
 * Whether the reader may approve it here: a call's approval, which the same rules every channel
 * applies would let them approve now (a role it asks for, not their own request unless the policy
 * allows it, not signed by them already). Anything else shows as waiting for others.
 */
function mayDecideHere(approval: ApprovalView, reader: ApproverIdentity): boolean {
  return (
    approval.kind === 'call' &&
    approval.allowedDecisions.includes('approve') &&
    !roleRefusal(approval, reader.roles) &&
    !selfApprovalRefusal(approval, reader.id, approval.requester, 'approve') &&
    !repeatSignoffRefusal(approval, reader.id, 'approve')
  );
}

function shownOf(approval: ApprovalView): ChatApproval {
  const short = missing(approval.requirements, approval.approvals);
  return {
    approvalId: approvalIdOf(approval),
    trackingId: approval.trackingId,
    revision: approval.revision,
    kind: approval.kind,
    tool: approval.tool,
    toolCallId: approval.toolCallId,
    description: approval.description,
    args: approval.args,
    schema: approval.schema,
    allowedDecisions: approval.allowedDecisions,
    ...(approval.editableFields ? { editableFields: approval.editableFields } : {}),
    requirements: approval.requirements.map((requirement, i) => ({
      ...requirement,
      have: requirement.count - short[i]!,
    })),
    needs: requirementLines(approval),
    signedBy: approval.approvals.map((signoff) => signoff.approver),
    deadline: approval.deadline,
    ...(approval.chain ? { chain: approval.chain } : {}),
  };
}

/**
 * The pending approvals of the run's sub-agents, each shown at the run's own call that started its
 * sub-agent: the chat shows that call, not the sub-agent's.
 */
function subAgentApprovals(state: RunState): ApprovalView[] {
  return state.pending.flatMap((approval) =>
    approval.chain?.rootRunId === state.runId ? [{ ...approval, toolCallId: approval.chain.rootCallId }] : [],
  );
}

function decided(approval: ApprovalView, events: RunEvent[]): ChatApprovalDecided {
  const outcome = approval.outcome;
  return {
    trackingId: approval.trackingId,
    toolCallId: approval.toolCallId,
    tool: approval.tool,
    status: approval.status,
    by: outcome?.by ?? [],
    ...(outcome?.at ? { at: outcome.at } : {}),
    ...(outcome?.message ? { message: outcome.message } : {}),
    ...(outcome?.status === 'edited' && outcome.args ? { args: outcome.args, diff: outcome.diff ?? [] } : {}),
    decisions: events
      .filter((event) => event.type === 'approval.decided' && event.trackingId === approval.trackingId)
      .map((event) => ({
        actor: event.actor ?? '',
        ...(event.channel ? { channel: event.channel } : {}),
        ...(event.decision ? { decision: event.decision } : {}),
        ...(event.message ? { message: event.message } : {}),
        at: event.at,
      })),
  };
}

/** The arguments the call ran with: a person's edit, else the model's own. */
function inputOf(call: ToolCall, approvals: ApprovalView[]): JsonValue {
  const edited = lastOf(
    approvals,
    (approval) => approval.kind === 'call' && approval.outcome?.status === 'edited' && approval.outcome.args,
  );
  if (edited?.outcome?.args) return edited.outcome.args;
  return parsedJson(call.function.arguments);
}

/** What became of a call, from its tool message and the run's record of how it got there. */
function resultOf(
  call: ToolCall,
  content: string,
  approvals: ApprovalView[],
  events: RunEvent[],
  step: number,
): ChatPart {
  const toolCallId = call.id;
  const refused = lastOf(approvals, (approval) => REFUSED.includes(approval.status));
  // An unknown outcome a person answered "it failed" is an error, not a refusal.
  if (refused && refused.kind !== 'outcome') {
    const reason = refused.outcome?.message;
    return { type: 'tool-denied', step, toolCallId, ...(reason ? { reason } : {}) };
  }
  const ofCall = (event: RunEvent) => {
    const data = event.data as { toolCallId?: unknown } | undefined;
    return data?.toolCallId === toolCallId;
  };
  const ran = lastOf(events, (event) => event.type === 'tool.ran' && ofCall(event));
  const ranData = ran?.data as { ok?: boolean; error?: string } | undefined;
  if (ranData?.ok === false) return { type: 'tool-error', step, toolCallId, error: ranData.error ?? content };
  if (ran || approvals.some((approval) => approval.status === 'responded'))
    return { type: 'tool-output', step, toolCallId, output: parsedJson(content) };
  if (events.some((event) => event.type === 'tool.denied' && ofCall(event)))
    return { type: 'tool-denied', step, toolCallId, reason: content };
  // Arguments that fail the tool's schema, a tool the agent lacks: the model was told why.
  return { type: 'tool-error', step, toolCallId, error: content };
}

function groupApprovals(approvals: ApprovalView[]): Map<string, ApprovalView[]> {
  const seq = (approval: ApprovalView) => parseTrackingId(approval.trackingId)?.seq ?? 0;
  const byCall = new Map<string, ApprovalView[]>();
  for (const approval of [...approvals].sort((a, b) => seq(a) - seq(b))) {
    const list = byCall.get(approval.toolCallId) ?? [];
    list.push(approval);
    byCall.set(approval.toolCallId, list);
  }
  return byCall;
}

function parsedJson(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/** The last item that matches (the library targets ES2022, which has no `findLast`). */
function lastOf<T>(items: readonly T[], matches: (item: T) => unknown): T | undefined {
  for (let i = items.length - 1; i >= 0; i--) if (matches(items[i]!)) return items[i];
  return undefined;
}
