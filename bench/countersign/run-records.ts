import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { eventBytes } from '../../test/support/history-chain.js';
import { executionChain, roundTripsFromHistory, type RoundTrips } from '../lib/round-trips.js';
import type { RunBytes } from '../lib/server-bytes.js';

/**
 * What a Countersign run left on the Temporal server, read from it directly: the bench measures
 * here, whichever way its client drives the run.
 */
export function runRecords(client: Client) {
  const history = async (workflowId: string, runId?: string) =>
    (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
  return {
    async roundTrips(workflowId: string): Promise<RoundTrips> {
      const { raw } = await client.workflow.getHandle(workflowId).describe();
      const first = raw.workflowExecutionInfo?.firstRunId ?? raw.workflowExecutionInfo?.execution?.runId;
      if (!first) throw new Error(`run ${workflowId} has no execution`);
      return roundTripsFromHistory(await executionChain((runId) => history(workflowId, runId), first));
    },
    async runBytes(workflowId: string): Promise<RunBytes> {
      const { raw } = await client.workflow.getHandle(workflowId).describe();
      const info = raw.workflowExecutionInfo;
      const { Memo, SearchAttributes } = proto.temporal.api.common.v1;
      return {
        history: (await history(workflowId)).reduce((sum, event) => sum + eventBytes(event), 0),
        memo: info?.memo ? Memo.encode(info.memo).finish().length : 0,
        searchAttributes: info?.searchAttributes
          ? SearchAttributes.encode(info.searchAttributes).finish().length
          : 0,
      };
    },
  };
}
