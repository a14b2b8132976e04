import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ApproverConfig } from '../../../protocol/index.js';
import { executionsFile } from './fault-agents.js';
import { serveFaultModel } from './fault-model.js';
import { ProcessStack } from './process-stack.js';
import { Rest } from './rest.js';

const AGENTS_MODULE = fileURLToPath(new URL('./fault-agents.ts', import.meta.url));

export interface FaultStack {
  stack: ProcessStack;
  dataDir: string;
  executionsFile: string;
  approvers: ApproverConfig[];
  /** Starts runs; may not decide them (nobody approves their own run). */
  requester: Rest;
  /** Approvers with the `reviewer` role. */
  reviewers: Rest[];
  close(): Promise<void>;
}

/** The fake model in this process, and the Temporal dev server, worker and API as killable children. */
export async function startFaultStack(
  options: { reviewers?: number; notify?: boolean; decisionWaitMs?: number } = {},
): Promise<FaultStack> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'countersign-faults-'));
  const token = () => randomBytes(24).toString('base64url');
  const approvers: ApproverConfig[] = [
    { id: 'requester', email: 'requester@example.test', roles: ['requester'], token: token() },
    ...Array.from({ length: options.reviewers ?? 1 }, (_, i) => ({
      id: `reviewer-${i + 1}`,
      name: `Reviewer ${i + 1}`,
      email: `reviewer-${i + 1}@example.test`,
      roles: ['reviewer'],
      token: token(),
    })),
  ];
  const model = await serveFaultModel();
  let stack: ProcessStack;
  try {
    stack = await ProcessStack.start({
      dataDir,
      agentsModule: AGENTS_MODULE,
      modelUrl: model.url,
      approvers,
      notify: options.notify,
      decisionWaitMs: options.decisionWaitMs,
      // Every start of the server appends to it: FAULT_KEEP=1 leaves it for a post-mortem.
      temporalLog: path.join(dataDir, 'temporal.log'),
    });
  } catch (err) {
    await model.close();
    throw err;
  }
  return {
    stack,
    dataDir,
    executionsFile: executionsFile(dataDir),
    approvers,
    requester: new Rest(stack.apiUrl, approvers[0]!.token),
    reviewers: approvers.slice(1).map((a) => new Rest(stack.apiUrl, a.token)),
    async close() {
      await stack.stop();
      await model.close();
      // FAULT_KEEP=1 leaves Temporal's SQLite file and log and the tool ledger behind for a post-mortem.
      if (process.env.FAULT_KEEP === '1') console.error(`# fault data kept in ${dataDir}`);
      else rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
