import type {
  ApprovalTicket,
  ApprovalView,
  ArgChange,
  Channel,
  JsonObject,
  JsonSchema,
  JsonValue,
  TranscriptMessage,
  ToolCall,
} from '../protocol/index.js';

/** A tool as the model is told about it. */
export interface ModelTool {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema };
}

/** What the model is sent: the conversation so far and the tools it may call. */
export interface ModelInput {
  messages: TranscriptMessage[];
  tools: ModelTool[];
  /** The references the run's worker stored outputs under: only these are read back for the model. */
  storedOutputs?: string[];
}

/**
 * A model call carries its conversation and tools while they are small (at most
 * MODEL_INPUT_INLINE_CHARS as JSON), and past that names the run's transcript: the activity reads
 * the first `length` messages from the run itself (a query, which writes nothing to history), so a
 * turn adds to the history only what is new in it, not the whole conversation again. Runs recorded
 * before the inline input named it from the first call; earlier ones carried it always.
 */
export type ModelCallInput = { model: string } & (ModelInput | ModelInputRef);

/** The run's transcript by reference: its first `length` messages, read by a query. */
export interface ModelInputRef {
  transcript: { workflowId: string; runId: string; length: number };
}

/**
 * How large (JSON characters) a conversation and its tools may be and still ride in the model call:
 * enough for a short approval run, whose calls then skip the query, a round trip through the server
 * and the worker that took as long as the model call itself on the bench; small enough that a long
 * run's history grows by little more than each turn's news.
 */
export const MODEL_INPUT_INLINE_CHARS = 8 * 1024;

/** The assistant message the model answered with. */
export interface ModelReply {
  content: string | null;
  toolCalls: ToolCall[];
}

/**
 * The failure type of a tool attempt whose outcome is unknown: a tool that is not idempotent threw
 * `OutcomeUnknownError`, or was cut off mid-call (its run's cancellation aside). Its details carry
 * the attempt as an `UnknownAttempt` without its reason.
 */
export const OUTCOME_UNKNOWN_FAILURE = 'ToolOutcomeUnknown';

export interface ToolRunInput {
  agent: string;
  tool: string;
  args: JsonObject;
  runId: string;
  toolCallId: string;
  trackingId?: string;
  approvedBy: string[];
  /** The secrets the tool declares, sealed; the activity opens them for `execute` alone. */
  secrets?: { name: string; trackingId: string; sealed: string }[];
}

/**
 * A message a notifier posted for an approval, by the ids its channel updates it with (Slack's
 * channel and `ts`): never its content, nor a credential.
 *
 * @example
 * ```ts
 * import type { Notifier, PostedMessage } from 'countersign/worker';
 *
 * const chat: Notifier = {
 *   async notify(approval, { sent, onSent, onPosted }) {
 *     if (sent.includes('room')) return;
 *     const { id } = await room.post(`${approval.tool} waits for you`);
 *     const posted: PostedMessage = { channel: 'room', ts: id };
 *     onPosted(posted); // handed back to `update` when the approval changes
 *     onSent('room');
 *   },
 * };
 * ```
 */
export interface PostedMessage {
  channel: string;
  ts: string;
}

/** What the requestApproval activity answers: the ticket, and the messages it posted. */
export type NotifiedTicket = ApprovalTicket & { posted?: PostedMessage[] };

/**
 * Who took a step, and through which channel.
 *
 * @example
 * ```ts
 * import type { ChangedBy } from 'countersign/worker';
 *
 * const byline = (by: ChangedBy) => `by ${by.actor} through ${by.channel}`;
 * ```
 */
export interface ChangedBy {
  actor: string;
  channel: Channel;
}

/**
 * What became of an approval since its messages were posted: it settled (by the decision that
 * settled it, or whoever cancelled the run; nobody when it expired), or a new proposal replaced the
 * one they show, through an edit or an escalation, and is posted anew as `revision`.
 *
 * @example
 * ```ts
 * import type { ApprovalChange } from 'countersign/worker';
 *
 * const headline = (change: ApprovalChange) =>
 *   change.type === 'settled' ? 'decided' : `replaced by revision ${change.revision}`;
 * ```
 */
export type ApprovalChange =
  | { type: 'settled'; by?: ChangedBy }
  | { type: 'edited'; by: ChangedBy; at: string; revision: number; diff: ArgChange[] }
  | { type: 'escalated'; at: string; revision: number; approvers: string[] };

/**
 * The messages to update and how: `approval` is the approval as they showed it (`edited`,
 * `escalated`), or as it ended (`settled`).
 *
 * @example
 * ```ts
 * import type { MessagesUpdate, Notifier } from 'countersign/worker';
 *
 * const chat: Notifier = {
 *   async notify() {},
 *   async update({ approval, change, messages }: MessagesUpdate, { sent, onSent }) {
 *     for (const message of messages) {
 *       const key = `${message.ts}:${change.type}`;
 *       if (sent.includes(key)) continue;
 *       await room.edit(message.ts, `${approval.tool}: ${approval.status}`);
 *       onSent(key);
 *     }
 *   },
 * };
 * ```
 */
export interface MessagesUpdate {
  approval: ApprovalView;
  change: ApprovalChange;
  messages: PostedMessage[];
}

/**
 * The edit that made an approval's current revision, for the notifications of that revision.
 *
 * @example
 * ```ts
 * import type { EditNote } from 'countersign/worker';
 *
 * const said = (edit: EditNote) =>
 *   `${edit.by.actor} changed ${edit.diff.map((change) => change.path).join(', ')}`;
 * ```
 */
export interface EditNote {
  by: ChangedBy;
  /** The revision it changed. */
  from: number;
  diff: ArgChange[];
}

/**
 * A reminder before an approval's deadline: which of the policy's it is, counted from 1.
 *
 * @example
 * ```ts
 * import type { ReminderNote } from 'countersign/worker';
 *
 * const subject = (tool: string, reminder?: ReminderNote) =>
 *   reminder ? `Reminder ${reminder.number}: ${tool} still waits` : `${tool} waits for you`;
 * ```
 */
export interface ReminderNote {
  number: number;
  beforeDeadlineSeconds: number;
}

/**
 * The activities the workflow schedules. Declared here, beside the workflow, so workflow code needs
 * no import from activities/ (which may reach Node modules); the worker's activities implement it.
 */
export interface CountersignActivities {
  callModel(input: ModelCallInput): Promise<ModelReply>;
  /**
   * Notifies the approvers; returns at once, the decision arrives later by signal. `edit` is the
   * edit that made this revision; scheduled by earlier versions without it. With `reminder`, it
   * reminds those still needed before the deadline instead.
   */
  requestApproval(approval: ApprovalView, edit?: EditNote, reminder?: ReminderNote): Promise<NotifiedTicket>;
  /** Updates the messages posted for an approval to say what became of it. */
  updateMessages(update: MessagesUpdate): Promise<void>;
  runTool(input: ToolRunInput): Promise<JsonValue>;
}
