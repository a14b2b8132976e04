import type { Client } from '@temporalio/client';
import type { AgentDefinition } from '../define/index.js';
import type { ApproverConfig } from '../protocol/index.js';

export interface ApiOptions {
  client: Client;
  namespace: string;
  taskQueue: string;
  agents: AgentDefinition[];
  approvers: ApproverConfig[];
  signingSecret: string;
  /** Base URL people reach this API at; email links and the inbox use it. */
  publicUrl: string;
  dataDir: string;
  /** Model for agents that name none. */
  defaultModel: string;
  /** How long a decision request waits for the workflow's answer before it answers 202. */
  decisionWaitMs?: number;
  /** How often the global event stream re-reads the run list. */
  listPollMs?: number;
}
