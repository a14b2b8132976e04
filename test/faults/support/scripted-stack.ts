import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  serveChatCompletions,
  type ChatCompletionHandler,
} from '../../../model-server/chat-completions-server.js';
import type { ApproverConfig } from '../../../protocol/index.js';
import { ProcessStack } from './process-stack.js';
import { Rest } from './rest.js';

const AGENTS_MODULE = fileURLToPath(new URL('./fault-agents.ts', import.meta.url));

export interface ScriptedStack {
  stack: ProcessStack;
  dataDir: string;
  /** `requester` (role requester), then `reviewer-1`... (role reviewer). */
  approvers: ApproverConfig[];
  /** A REST client per approver, in the same order. */
  as: Rest[];
  /** The run as `GET /api/runs/:runId` shows it, once `accept` holds. */
  detail<T>(runId: string, accept: (detail: T) => boolean): Promise<T>;
}

/**
 * The fault agents on Temporal's dev server (a SQLite file), one worker and one API, each a process
 * of its own, with a model in this process (so it outlives every restart) that answers as `answer`
 * says. Everything stops when the test ends; FAULT_KEEP=1 leaves the data directory (Temporal's
 * SQLite file and log, the tools' logs) for a post-mortem.
 */
export async function startScriptedStack(
  t: TestContext,
  options: { name: string; reviewers: number; notify?: boolean; answer: ChatCompletionHandler },
): Promise<ScriptedStack> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `countersign-${options.name}-`));
  const token = () => randomBytes(24).toString('base64url');
  const approvers: ApproverConfig[] = [
    { id: 'requester', email: 'requester@example.test', roles: ['requester'], token: token() },
    ...Array.from({ length: options.reviewers }, (_, i) => ({
      id: `reviewer-${i + 1}`,
      email: `reviewer-${i + 1}@example.test`,
      roles: ['reviewer'],
      token: token(),
    })),
  ];
  const model = await serveChatCompletions(options.answer);
  const stack = await ProcessStack.start({
    dataDir,
    agentsModule: AGENTS_MODULE,
    modelUrl: model.url,
    approvers,
    notify: options.notify ?? false,
    temporalLog: path.join(dataDir, 'temporal.log'),
  }).catch(async (err: unknown) => {
    await model.close();
    throw err;
  });
  t.after(async () => {
    await stack.stop();
    await model.close();
    if (process.env.FAULT_KEEP === '1') console.error(`# fault data kept in ${dataDir}`);
    else rmSync(dataDir, { recursive: true, force: true });
  });
  const as = approvers.map((approver) => new Rest(stack.apiUrl, approver.token));
  return {
    stack,
    dataDir,
    approvers,
    as,
    detail: async <T>(runId: string, accept: (detail: T) => boolean) =>
      (
        await as[0]!.retry<T>(
          'GET',
          `/api/runs/${runId}`,
          undefined,
          (r) => r.status === 200 && accept(r.body),
        )
      ).body,
  };
}
