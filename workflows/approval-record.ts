import type {
  ApprovalView,
  JsonSchema,
  JsonObject,
  JsonValue,
  PlanStep,
  ToolSpec,
} from '../protocol/index.js';
import type { RunningTotals } from './run-totals.js';

/** How a proposal is described to the approver, from its arguments or plan. */
export type Describe = (proposal: { args: JsonObject; plan?: PlanStep[] }) => string;

/** One approval as the workflow keeps it: the public view plus what the model first proposed. */
export interface ApprovalRecord {
  view: ApprovalView;
  /** The model's proposal (arguments, plan, or the tool's output under review), for the final diff. */
  original: { args: JsonObject; plan?: PlanStep[]; result?: JsonValue };
  /** What a `respond` answer must match, for calls and results (questions carry it as their schema). */
  resultSchema?: JsonSchema;
  /** The description of an edited proposal, so every channel's header reads what is proposed now. */
  describe?: Describe;
  /** A human has edited the proposal (the settled status is then `edited`). */
  edited?: boolean;
  /** The sealed secret a person supplied (kind `secret`): kept out of the view, taken once by its caller. */
  sealed?: string;
}

/** What the workflow needs to know about the run to check a decision. */
export interface DecisionContext {
  requester?: string;
  usedNonces: ReadonlySet<string>;
  /** The agent's registered tools, for edited plans. */
  tools: ReadonlyMap<string, ToolSpec>;
  /** Refuse a decision that names no revision. */
  requireRevision: boolean;
  /** What the run counts toward cumulative limits; without it, each call is judged alone. */
  totals?: { of(tool: string, except: Iterable<string>): RunningTotals };
}
