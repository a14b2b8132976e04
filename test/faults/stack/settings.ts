import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { AgentDefinition } from '../../../define/index.js';
import { ApproverConfig } from '../../../protocol/index.js';
import type { KeySet } from '../../../codec/keyring.js';
import { loadSecretKeys } from '../../../secrets/sealer.js';

/**
 * What the stack's worker and API processes are told by their parent, through the environment, so
 * a killed process restarts with exactly the same settings.
 */
const Env = z.object({
  TEMPORAL_ADDRESS: z.string().min(1),
  STACK_AGENTS_MODULE: z.string().min(1),
  STACK_DATA_DIR: z.string().min(1),
  STACK_MODEL_URL: z.url(),
  STACK_APPROVERS: z.string().min(2),
  STACK_SIGNING_SECRET: z.string().min(32),
  STACK_PUBLIC_URL: z.url(),
  STACK_NOTIFY: z.enum(['0', '1']).default('0'),
  STACK_DECISION_WAIT_MS: z.coerce.number().int().min(0).optional(),
  STACK_WORKFLOW_BUNDLE: z.string().min(1).optional(),
  /** `COUNTERSIGN_SECRET_KEYS`'s format: secrets the API seals and the worker opens. */
  STACK_SECRET_KEYS: z.string().min(1).optional(),
  /** A directory both the worker and the API keep large tool outputs in. */
  STACK_CONTENT_DIR: z.string().min(1).optional(),
  PORT: z.coerce.number().int().min(0).default(0),
});

export interface StackSettings {
  temporalAddress: string;
  dataDir: string;
  modelUrl: string;
  approvers: ApproverConfig[];
  signingSecret: string;
  publicUrl: string;
  notify: boolean;
  decisionWaitMs?: number;
  /** A file holding the bundled workflow code. */
  workflowBundle?: string;
  secretKeys?: KeySet;
  contentDir?: string;
  port: number;
  agents: AgentDefinition[];
}

/** A module the stack loads its agents from: `export function createAgents(dataDir)`. */
export interface AgentsModule {
  createAgents(dataDir: string): AgentDefinition[];
}

export async function loadStackSettings(env: NodeJS.ProcessEnv = process.env): Promise<StackSettings> {
  const e = Env.parse(env);
  const module = (await import(pathToFileURL(e.STACK_AGENTS_MODULE).href)) as AgentsModule;
  return {
    temporalAddress: e.TEMPORAL_ADDRESS,
    dataDir: e.STACK_DATA_DIR,
    modelUrl: e.STACK_MODEL_URL,
    approvers: z.array(ApproverConfig).parse(JSON.parse(e.STACK_APPROVERS)),
    signingSecret: e.STACK_SIGNING_SECRET,
    publicUrl: e.STACK_PUBLIC_URL,
    notify: e.STACK_NOTIFY === '1',
    decisionWaitMs: e.STACK_DECISION_WAIT_MS,
    workflowBundle: e.STACK_WORKFLOW_BUNDLE,
    secretKeys: e.STACK_SECRET_KEYS
      ? loadSecretKeys({ COUNTERSIGN_SECRET_KEYS: e.STACK_SECRET_KEYS })
      : undefined,
    contentDir: e.STACK_CONTENT_DIR,
    port: e.PORT,
    agents: module.createAgents(e.STACK_DATA_DIR),
  };
}
