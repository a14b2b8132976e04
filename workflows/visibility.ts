import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { upsertMemo, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { PENDING_MEMO_KEY } from '../protocol/search-attributes.js';
import type { ApprovalView, RunStatus } from '../protocol/index.js';
import { searchAttributeKeys } from './search-attributes.js';
import { isPatched, CHANGE_TIME_PATCH } from './patches.js';

type Listed = Pick<
  typeof searchAttributeKeys,
  'agent' | 'status' | 'pending' | 'pendingTools' | 'pendingRoles'
>;
const LISTED: (keyof Listed)[] = ['agent', 'status', 'pending', 'pendingTools', 'pendingRoles'];

/**
 * Publishes the run's status and pending approvals to its search attributes and memo, so one
 * ListWorkflowExecutions call lists the inbox, and the time it last changed. Only changes are
 * written, to keep the history lean: at most one stamp per workflow task.
 *
 * Each upsert and each memo change is also a rewrite of the run's row in the server's lists. A run
 * of the current generation (`lean`) writes only the attributes whose values changed, from those
 * its start set, and its memo only when its pending approvals change (a new run has none); runs
 * recorded before wrote all five, and the memo, at every change of status.
 */
export class Visibility {
  private last = '';
  /** The workflow time last stamped. One stamp covers every change of the same workflow task. */
  private stamped: number | undefined;
  private stampDue = false;
  /** What the lists hold of each attribute, as written (JSON); lean runs only. */
  private readonly written = new Map<keyof Listed, string>();
  /** The memo's pending approvals as written (JSON); unknown in a continued run until written. */
  private writtenMemo: string | undefined;

  constructor(
    private readonly agent: string,
    private readonly lean = false,
    continued = false,
  ) {
    if (!lean) return;
    // What the start (or, continued, the run before) left in the lists; absent lists hold nothing.
    const started = workflowInfo().typedSearchAttributes;
    for (const name of LISTED) {
      const value = started.get(searchAttributeKeys[name]);
      const listed = value ?? (name === 'pendingTools' || name === 'pendingRoles' ? [] : undefined);
      if (listed !== undefined) this.written.set(name, JSON.stringify(listed));
    }
    if (!continued) this.writtenMemo = '[]';
  }

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
    if (this.lean)
      return this.publishChanges(
        { agent: this.agent, status, pending: pending.length, pendingTools: tools, pendingRoles: roles },
        summary,
      );
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

  private publishChanges(values: { [K in keyof Listed]: unknown }, summary: unknown[]): void {
    const changed = LISTED.filter((name) => this.written.get(name) !== JSON.stringify(values[name]));
    for (const name of changed) this.written.set(name, JSON.stringify(values[name]));
    const pairs = changed.map(
      (name) => ({ key: searchAttributeKeys[name], value: values[name] }) as SearchAttributeUpdatePair,
    );
    const attributes = [...pairs, ...this.stamp()];
    if (attributes.length > 0) upsertSearchAttributes(attributes);
    const memo = JSON.stringify(summary);
    if (memo === this.writtenMemo) return;
    this.writtenMemo = memo;
    upsertMemo({ [PENDING_MEMO_KEY]: summary });
  }

  /** The change time to write, unless this workflow task has written it (workflow time: replays alike). */
  private stamp(): SearchAttributeUpdatePair[] {
    const now = Date.now();
    if (this.stamped === now || !isPatched(CHANGE_TIME_PATCH)) return [];
    this.stamped = now;
    return [{ key: searchAttributeKeys.changedAt, value: new Date(now) }];
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)].sort();
}
