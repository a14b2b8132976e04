import type { Client } from '@temporalio/client';
import { PENDING_MEMO_KEY, SEARCH_ATTRIBUTES, WAITING_FILTER, type ApprovalView } from '../protocol/index.js';
import { decodePayload } from './decode-payload.js';

/**
 * Which pending approvals to list; every filter left out matches all.
 *
 * @example
 * ```ts
 * import { listPendingApprovals, type PendingApprovalFilter } from 'countersign/client';
 *
 * const filter: PendingApprovalFilter = { agent: 'support', role: 'support-lead' };
 * const waiting = await listPendingApprovals(client, filter);
 * ```
 */
export interface PendingApprovalFilter {
  agent?: string;
  tool?: string;
  /** Approvals this role may decide. */
  role?: string;
}

/** A list-query string literal; ids, roles and tool names hold no `\` or control characters. */
function literal(value: string): string {
  if (/[\\\p{Cc}]/u.test(value)) throw new TypeError(`cannot match ${JSON.stringify(value)} in a list query`);
  return `'${value.replace(/'/g, "''")}'`;
}

/**
 * The approvals waiting for a decision, read from each waiting run's memo through Temporal's list
 * (no worker needed). A run whose memo this client cannot decode is left out. A list lags a little behind the runs it lists: an approval requested a moment
 * ago may show a moment later.
 *
 * @example
 * ```ts
 * for (const approval of await listPendingApprovals(client, { role: 'treasury' }))
 *   console.log(approval.trackingId, approval.description, approval.revision);
 * ```
 */
export async function listPendingApprovals(
  client: Client,
  filter: PendingApprovalFilter = {},
): Promise<ApprovalView[]> {
  const clauses = [`WorkflowType = 'agentWorkflow'`, `ExecutionStatus = 'Running'`, WAITING_FILTER];
  if (filter.agent !== undefined) clauses.push(`${SEARCH_ATTRIBUTES.agent.name} = ${literal(filter.agent)}`);
  if (filter.tool !== undefined)
    clauses.push(`${SEARCH_ATTRIBUTES.pendingTools.name} = ${literal(filter.tool)}`);
  if (filter.role !== undefined)
    clauses.push(`${SEARCH_ATTRIBUTES.pendingRoles.name} = ${literal(filter.role)}`);
  const approvals: ApprovalView[] = [];
  const query = clauses.join(' AND ');
  let nextPageToken: Uint8Array | undefined;
  do {
    // The raw list, each memo decoded on its own: one run whose memo does not decode here (a key
    // this client does not hold) is left out, never failing the whole list.
    const page = await client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    for (const run of page.executions ?? []) {
      const pending = await decodePayload(client, run.memo?.fields?.[PENDING_MEMO_KEY]).catch(
        () => undefined,
      );
      if (!Array.isArray(pending)) continue;
      for (const approval of pending as ApprovalView[]) {
        if (approval.status !== 'pending') continue;
        if (filter.tool !== undefined && approval.tool !== filter.tool) continue;
        if (filter.role !== undefined && !approval.approvers.includes(filter.role)) continue;
        approvals.push(approval);
      }
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return approvals;
}
