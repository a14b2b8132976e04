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

export interface ModelCallInput {
  model: string;
  messages: TranscriptMessage[];
  tools: ModelTool[];
}

/** The assistant message the model answered with. */
export interface ModelReply {
  content: string | null;
  toolCalls: ToolCall[];
}

export interface ToolRunInput {
  agent: string;
  tool: string;
  args: JsonObject;
  runId: string;
  toolCallId: string;
  trackingId?: string;
  approvedBy: string[];
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
