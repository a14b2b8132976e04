import type {
  ApprovalTicket,
  ApprovalView,
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
 * A model call names the run's transcript rather than carrying it: the activity reads the first
 * `length` messages from the run itself (a query, which writes nothing to history), so a turn adds
 * to the history only what is new in it, not the whole conversation again. Calls scheduled by
 * earlier versions carry `messages` and `tools` themselves.
 */
export type ModelCallInput = { model: string } & (
  | ModelInput
  | { transcript: { workflowId: string; runId: string; length: number } }
);

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
 * The activities the workflow schedules. Declared here, beside the workflow, so workflow code needs
 * no import from activities/ (which may reach Node modules); the worker's activities implement it.
 */
export interface CountersignActivities {
  callModel(input: ModelCallInput): Promise<ModelReply>;
  /** Notifies the approvers; returns at once, the decision arrives later by signal. */
  requestApproval(approval: ApprovalView): Promise<ApprovalTicket>;
  runTool(input: ToolRunInput): Promise<JsonValue>;
}
