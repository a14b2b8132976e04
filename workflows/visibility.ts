import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { patched, upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import { PENDING_MEMO_KEY } from '../protocol/search-attributes.js';
import type { ApprovalView, RunStatus } from '../protocol/index.js';
import { searchAttributeKeys } from './search-attributes.js';

/**
 * A run stamps `CountersignChangedAt` when it changes (its log grows, its status or pending
 * approvals change), so the inbox feed lists only changed runs. Runs recorded before never stamped:
 * asked where a stamp would go, the patch stays off while such a history replays, and turns on at
 * the run's first step run live, whose stamp then shows that change.
 */
export const CHANGE_TIME_PATCH = 'countersign-change-time';

/**
 * Publishes the run's status and pending approvals to its search attributes and memo, so one
 * ListWorkflowExecutions call lists the inbox, and the time it last changed. Only changes are
 * written, to keep the history lean: at most one stamp per workflow task.
 */
export class Visibility {
  private last = '';
  /** The workflow time last stamped. One stamp covers every change of the same workflow task. */
  private stamped: number | undefined;
  private stampDue = false;

  constructor(private readonly agent: string) {}

  /**
   * The run's log gained an event. Stamped once the step's synchronous work is done (a microtask,
   * still within the workflow task), so that a publish in the same step carries the stamp in its
   * own upsert instead of a second one.
   */
  changed(): void {
    if (this.stampDue || this.stamped === Date.now()) return;
    this.stampDue = true;
    void Promise.resolve().then(() => {
      this.stampDue = false;
      const stamp = this.stamp();
      if (stamp.length > 0) upsertSearchAttributes(stamp);
    });
  }

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
      ...this.stamp(),
    ]);
    upsertMemo({ [PENDING_MEMO_KEY]: summary });
  }

  /** The change time to write, unless this workflow task has written it (workflow time: replays alike). */
  private stamp(): SearchAttributeUpdatePair[] {
    const now = Date.now();
    if (this.stamped === now || !patched(CHANGE_TIME_PATCH)) return [];
    this.stamped = now;
    return [{ key: searchAttributeKeys.changedAt, value: new Date(now) }];
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)].sort();
}
