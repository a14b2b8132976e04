import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { registerSearchAttributes, sendDecision } from '../../client/index.js';
import type { AgentDefinition } from '../../define/index.js';
import { trackingIdFor } from '../../protocol/index.js';
import { ONE_MACHINE_SERVER } from '../../temporal/one-machine.js';
import { startChild } from '../../test/faults/support/child.js';
import { ProcessStack } from '../../test/faults/support/process-stack.js';
import { createAgents } from '../countersign/agents.js';

/** The Temporal dev server's settings: `npm start`'s (`one-machine`) or the server's `defaults`. */
export type ServerSettings = 'one-machine' | 'defaults';

export interface BenchStack {
  stack: ProcessStack;
  client: Client;
  /** The scenario's agent. */
  agent: AgentDefinition;
  /** Stops the stack and the fake model and removes the data folder; a second call does nothing. */
  stop(): Promise<void>;
}

/**
 * The Temporal dev server and one worker as in the bench's countersign-signal system, on the fake
 * model, with the inbox's search attributes registered (there is no API process to do it).
 */
export async function startBenchStack(name: string, server: ServerSettings): Promise<BenchStack> {
  const model = await startChild({ label: 'fake model', file: 'bench/model/serve.ts', ready: 'ipc' });
  const dataDir = mkdtempSync(path.join(tmpdir(), `countersign-${name}-`));
  let stack: ProcessStack | undefined;
  let connection: Connection | undefined;
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      await connection?.close();
      await stack?.stop();
      await model.kill();
      rmSync(dataDir, { recursive: true, force: true });
    })());
  try {
    stack = await ProcessStack.start({
      dataDir,
      agentsModule: path.resolve('bench/countersign/agents.ts'),
      modelUrl: String(model.info.url),
      approvers: [],
      roles: ['temporal', 'worker'],
      // As the bench: `npm start`'s server settings, or the server's defaults.
      serverSettings: server === 'one-machine' ? ONE_MACHINE_SERVER : undefined,
    });
    connection = await Connection.connect({ address: stack.temporalAddress });
    await registerSearchAttributes(connection, 'default');
  } catch (err) {
    await stop();
    throw err;
  }
  const [agent] = createAgents();
  return { stack, client: new Client({ connection }), agent: agent!, stop };
}

/**
 * Approves a run's first approval as an admin named `approver`: by the signal (not waiting), or as
 * `sendDecision` does with a worker up, by the update the worker answers.
 */
export function approveFirst(client: Client, runId: string, by: 'signal' | 'update', approver: string) {
  return sendDecision(
    client,
    {
      trackingId: trackingIdFor(runId, 1),
      decision: { type: 'approve' },
      approver: { id: approver, roles: ['admin'] },
      channel: 'api',
      requestId: randomUUID(),
      // The first revision: nothing edits a proposal in the bench.
      revision: 1,
    },
    { waitMs: by === 'update' ? 30_000 : 0 },
  );
}
