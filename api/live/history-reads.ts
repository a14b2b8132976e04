/**
 * A run's history as the server alone knows it (no worker): how the event feed tells which runs
 * changed, and since when, without waking quiet ones.
 */
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { timestampMs } from '../timestamps.js';
import { historyEvents } from './history-pages.js';

const RUNNING = proto.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;

/**
 * A run's live history length, and whether it has closed, from the server alone (no worker);
 * undefined when it cannot be read.
 */
export async function liveHistory(
  client: Client,
  namespace: string,
  runId: string,
): Promise<{ length: number; closed: boolean; execution: string } | undefined> {
  try {
    const { workflowExecutionInfo: info } = await client.workflowService.describeWorkflowExecution({
      namespace,
      execution: { workflowId: runId },
    });
    return {
      length: Number(info?.historyLength ?? 0),
      closed: info?.status !== RUNNING,
      execution: info?.execution?.runId ?? '',
    };
  } catch {
    return undefined;
  }
}

/**
 * The run's last workflow task to complete after event `afterEventId`: its event id and when it
 * completed; null when none did; undefined when the history cannot be read now. A run's event log
 * changes only when a workflow task completes, so null says the log is as it was at that event. A
 * server-only read (no worker), from the end of the history back.
 */
export async function lastCompletedTask(
  client: Client,
  namespace: string,
  runId: string,
  afterEventId = 0,
): Promise<{ eventId: number; time: number } | null | undefined> {
  try {
    for await (const event of newestFirst(client, namespace, runId)) {
      const eventId = Number(event.eventId ?? 0);
      if (eventId <= afterEventId) return null;
      if (event.workflowTaskCompletedEventAttributes) {
        return { eventId, time: event.eventTime ? timestampMs(event.eventTime) : 0 };
      }
    }
    return null;
  } catch {
    return undefined;
  }
}

/**
 * When the run's last workflow task to complete before `before` (epoch ms) completed; -Infinity
 * when none did; undefined when the history cannot be read now. A run stamps its events with the
 * start of the workflow task that wrote them, and its tasks run one after another, so every event
 * written from `before` on is stamped at or after this moment. A server-only read (no worker).
 */
export async function lastTaskBefore(
  client: Client,
  namespace: string,
  runId: string,
  before: number,
): Promise<number | undefined> {
  try {
    for await (const event of newestFirst(client, namespace, runId)) {
      const time = event.eventTime ? timestampMs(event.eventTime) : 0;
      if (event.workflowTaskCompletedEventAttributes && time < before) return time;
    }
    return Number.NEGATIVE_INFINITY;
  } catch {
    return undefined;
  }
}

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
function newestFirst(client: Client, namespace: string, runId: string, pageSize = 50) {
  return historyEvents(client, namespace, { workflowId: runId }, { reverse: true, pageSize });
}
