import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;
const E = proto.temporal.api.enums.v1.EventType;

/** Each execution's history of a run's chain (continue-as-new), first to last. */
export async function historyChain(client: Client, workflowId: string): Promise<HistoryEvent[][]> {
  const { raw } = await client.workflow.getHandle(workflowId).describe();
  const executions: HistoryEvent[][] = [];
  let execution = raw.workflowExecutionInfo?.firstRunId ?? undefined;
  while (execution) {
    const events = (await client.workflow.getHandle(workflowId, execution).fetchHistory()).events ?? [];
    executions.push(events);
    const last = events.at(-1);
    execution =
      last?.eventType === E.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW
        ? (last.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined)
        : undefined;
  }
  return executions;
}

/** An event's size as the server stores it (protobuf). */
export const eventBytes = (event: HistoryEvent): number =>
  proto.temporal.api.history.v1.HistoryEvent.encode(event).finish().length;

/**
 * Bytes written to history per turn across the chain: a turn runs from one model call's scheduling
 * to the next one's (what comes before the first call counts in the first turn).
 */
export function bytesPerTurn(executions: HistoryEvent[][]): number[] {
  const perTurn = [0];
  let called = false;
  for (const events of executions) {
    for (const event of events) {
      const modelCall =
        event.eventType === E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
        event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel';
      if (modelCall && called) perTurn.push(0);
      called ||= modelCall;
      perTurn[perTurn.length - 1]! += eventBytes(event);
    }
  }
  return perTurn;
}
