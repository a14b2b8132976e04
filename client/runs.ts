import type { Client } from '@temporalio/client';
import type { RunState } from '../protocol/index.js';
import { stateQuery } from '../workflows/definitions.js';

/** The run's whole state (transcript, approvals, events), running or closed. */
export function getRunState(client: Client, runId: string): Promise<RunState> {
  return client.workflow.getHandle(runId).query(stateQuery);
}

/** Cancels a run: its pending approvals settle as cancelled and it ends with status `cancelled`. */
export async function cancelRun(client: Client, runId: string): Promise<void> {
  await client.workflow.getHandle(runId).cancel();
}
