import type { AgentDefinition } from 'countersign';
import { bankTransferAgent } from './bank-transfer.js';
import { helpdeskAgent } from './helpdesk.js';
import { loanApprovalAgent } from './loan-approval.js';
import { opsAgent } from './ops.js';
import { sqlAnalystAgent } from './sql-analyst.js';
import { supportEmailAgent } from './support-email.js';

export interface DemoAgentOptions {
  /** Where the demo ledger, simulated host, sample database and outbox live. */
  dataDir: string;
}

/** The demo agents whose tools are written in code; their state lives under `<dataDir>/demo` and `<dataDir>/outbox`. */
export function demoAgents(options: DemoAgentOptions): AgentDefinition[] {
  return [
    loanApprovalAgent(options.dataDir),
    bankTransferAgent(options.dataDir),
    opsAgent(options.dataDir),
    sqlAnalystAgent(options.dataDir),
    supportEmailAgent(options.dataDir),
  ];
}

/**
 * Every agent `npm start` runs: those above, and the helpdesk, whose tools come from the demo's
 * ticket MCP server, started here. `close` ends that server: call it once the worker has stopped.
 */
export async function startDemoAgents(
  options: DemoAgentOptions,
): Promise<{ agents: AgentDefinition[]; close(): Promise<void> }> {
  const helpdesk = await helpdeskAgent(options.dataDir);
  return { agents: [...demoAgents(options), helpdesk.agent], close: helpdesk.close };
}
