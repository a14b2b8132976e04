import type {
  ApprovalView,
  DecisionOutcome,
  JsonObject,
  JsonSchema,
  JsonValue,
  PlanStep,
  RunControl,
  RunEvent,
  TranscriptMessage,
} from '../protocol/index.js';

/** A settled approval as the next run in the chain keeps it: its view, and what its final diff needs. */
export interface CarriedApproval {
  view: ApprovalView;
  original: { args: JsonObject; plan?: PlanStep[]; result?: JsonValue };
  resultSchema?: JsonSchema;
  edited?: boolean;
}

/** The approval book across a continuation: ids keep counting, late decisions keep their answers. */
export interface CarriedBook {
  seq: number;
  approvals: CarriedApproval[];
  outcomes: DecisionOutcome[];
  usedNonces: string[];
}

/**
 * What a run hands the next run of its chain when it continues as new (Temporal's answer to a
 * history that grows too long): everything a reader of the run sees, so the run view, the audit
 * trail, the event log, tracking ids and decision outcomes go on as if the run had not continued.
 * Taken only at a turn boundary, with no approval pending.
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
}
