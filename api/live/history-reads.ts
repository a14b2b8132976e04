/**
 * A run's history as the server alone knows it (no worker): how a resuming inbox subscriber tells
 * whether a run that stamps no change time changed while it was away, without waking quiet ones.
 */
import type { Client } from '@temporalio/client';
import { timestampMs } from '../timestamps.js';
import { historyEvents } from './history-pages.js';

/**
 * When the run's history last grew: the time of its last event, a server-only read (no worker).
 * Unknown counts as now, so the run is read.
 */
export async function lastChange(client: Client, namespace: string, runId: string): Promise<number> {
  try {
    for await (const { eventTime } of newestFirst(client, namespace, runId, 1)) {
      return eventTime ? timestampMs(eventTime) : Date.now();
    }
    return Date.now();
  } catch {
    return Date.now();
  }
}

/** The run's latest execution's events, from the end back. */
function newestFirst(client: Client, namespace: string, runId: string, pageSize: number) {
  return historyEvents(client, namespace, { workflowId: runId }, { reverse: true, pageSize });
}
