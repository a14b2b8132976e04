import type { AgentSpec, ToolSpec } from '../protocol/index.js';
import type { ApprovalBook } from './approval-book.js';
import type { RunLog } from './run-log.js';
import type { RunTotals } from './run-totals.js';
import type { SecretVault } from './secret-vault.js';
import type { SubAgents } from './sub-agents.js';

/** What the parts of one run share. */
export interface RunContext {
  runId: string;
  agent: AgentSpec;
  requester?: string;
  /** The agent's registered tools by name (without the built-in ask_human). */
  tools: ReadonlyMap<string, ToolSpec>;
  log: RunLog;
  book: ApprovalBook;
  /** Secrets people supplied, sealed, until the calls that need them have run. */
  vault: SecretVault;
  /** The references the run's worker stored outputs under: the only stored outputs the run has. */
  storedOutputs: string[];
  /** The calls cumulative limits count. */
  totals: RunTotals;
  /** Tool call ids for steps a human added to a plan: unique in the run. */
  nextAddedCallId(): string;
  /**
   * While the run is paused, a promise of its resume; otherwise undefined, so a step that checks
   * it adds no await (and no reordering of commands) to runs nobody pauses.
   */
  paused(): Promise<void> | undefined;
  /** The agents the run may call as tools, each run as a child workflow. */
  subAgents: SubAgents;
}
