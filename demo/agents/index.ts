import type { AgentDefinition } from 'countersign';
import { bankTransferAgent } from './bank-transfer.js';
import { loanApprovalAgent } from './loan-approval.js';
import { opsAgent } from './ops.js';
import { sqlAnalystAgent } from './sql-analyst.js';
import { supportEmailAgent } from './support-email.js';

export interface DemoAgentOptions {
  /** Where the demo ledger, simulated host, sample database and outbox live. */
  dataDir: string;
}

/** The five demo agents `npm start` runs; their state lives under `<dataDir>/demo` and `<dataDir>/outbox`. */
export function demoAgents(options: DemoAgentOptions): AgentDefinition[] {
  return [
    loanApprovalAgent(options.dataDir),
    bankTransferAgent(options.dataDir),
    opsAgent(options.dataDir),
    sqlAnalystAgent(options.dataDir),
    supportEmailAgent(options.dataDir),
  ];
}
