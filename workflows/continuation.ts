import type {
  ApprovalView,
  DecisionOutcome,
  JsonObject,
  JsonSchema,
  JsonValue,
  PlanStep,
  RunControl,
  RunEvent,
  ToolCall,
  TranscriptMessage,
} from '../protocol/index.js';
import type { CarriedMessages } from './posted-messages.js';
import type { HeldSecret } from './secret-vault.js';
import type { CountedCall } from './run-totals.js';
import type { StandingGrant } from './standing-approvals.js';

/** A settled approval as the next run in the chain keeps it: its view, and what its final diff needs. */
export interface CarriedApproval {
  view: ApprovalView;
  original: { args: JsonObject; plan?: PlanStep[]; result?: JsonValue };
  resultSchema?: JsonSchema;
  edited?: boolean;
  /** The messages posted for it while it waits, to update when it changes. */
  messages?: CarriedMessages;
}

/** The approval book across a continuation: ids keep counting, late decisions keep their answers. */
export interface CarriedBook {
  seq: number;
  approvals: CarriedApproval[];
  outcomes: DecisionOutcome[];
  usedNonces: string[];
  /** The run's standing approvals, when it has any. */
  standing?: StandingGrant[];
}

/**
 * A turn handed on while its calls wait for people: the answers its calls already have. The calls
 * still waiting each wait on one pending approval, carried in the book, and are asked again under
 * the same tracking id.
 */
export interface CarriedTurn {
  answers: { toolCallId: string; content: string }[];
  /** Calls a human added to the turn's reviewed plan, when the plan is among the answers. */
  addedCalls: ToolCall[];
}

/**
 * What a run hands the next run of its chain when it continues as new (Temporal's answer to a
 * history that grows too long): everything a reader of the run sees, so the run view, the audit
 * trail, the event log, tracking ids and decision outcomes go on as if the run had not continued.
 * Taken at a turn boundary, or while every unanswered call of the turn waits for a first decision.
 */
export interface Continuation {
  /** How many times the run has continued, this one included. */
  continued: number;
  startedAt: string;
  turns: number;
  transcript: TranscriptMessage[];
  events: RunEvent[];
  book: CarriedBook;
  addedCalls: number;
  pausedBy?: RunControl;
  corrections: string[];
  /** Set when the run continued in the middle of a turn; its assistant message ends the transcript. */
  turn?: CarriedTurn;
  /** Secrets the run holds, still sealed. */
  secrets?: HeldSecret[];
  /** The references its worker stored outputs under (`RunState.storedOutputs`). */
  storedOutputs?: string[];
  /** The calls cumulative limits count, when a tool of the agent has such a limit. */
  totals?: CountedCall[];
}
