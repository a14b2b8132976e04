import type { Client } from '@temporalio/client';
import type proto from '@temporalio/proto';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/**
 * A run's history events as the server pages them, oldest first (newest first with `reverse`): a
 * server-only read, no worker. A page is asked for only when the one before is used up, so a
 * reader that stops early reads no further. `execution` without a run id is the latest execution.
 */
export async function* historyEvents(
  client: Client,
  namespace: string,
  execution: { workflowId: string; runId?: string },
  { reverse = false, pageSize }: { reverse?: boolean; pageSize?: number } = {},
): AsyncGenerator<HistoryEvent> {
  let nextPageToken: Uint8Array | undefined;
  do {
    const request = { namespace, execution, maximumPageSize: pageSize, nextPageToken };
    const page = reverse
      ? await client.workflowService.getWorkflowExecutionHistoryReverse(request)
      : await client.workflowService.getWorkflowExecutionHistory(request);
    yield* page.history?.events ?? [];
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
}
