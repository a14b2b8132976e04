import { upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import { PENDING_MEMO_KEY } from '../protocol/search-attributes.js';
import type { ApprovalView, RunStatus } from '../protocol/index.js';
import { searchAttributeKeys } from './search-attributes.js';

/**
 * Publishes the run's status and pending approvals to its search attributes and memo, so one
 * ListWorkflowExecutions call lists the inbox. Only changes are written, to keep the history lean.
 */
export class Visibility {
  private last = '';

  constructor(private readonly agent: string) {}

  publish(status: RunStatus, pending: ApprovalView[]): void {
    const tools = unique(pending.map((view) => view.tool));
    const roles = unique(pending.flatMap((view) => view.approvers));
    const summary = pending.map(({ schema: _schema, ...rest }) => rest);
    const key = JSON.stringify([status, summary]);
    if (key === this.last) return;
    this.last = key;
    upsertSearchAttributes([
      { key: searchAttributeKeys.agent, value: this.agent },
      { key: searchAttributeKeys.status, value: status },
      { key: searchAttributeKeys.pending, value: pending.length },
      { key: searchAttributeKeys.pendingTools, value: tools },
      { key: searchAttributeKeys.pendingRoles, value: roles },
    ]);
    upsertMemo({ [PENDING_MEMO_KEY]: summary });
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)].sort();
}
