import type { ApprovalStatus, RunStatus } from '../../../protocol/index.js';
import { appliedText } from './fault-agents.js';
import type { Execution } from './executions.js';

export type Choice = 'approve' | 'edit' | 'reject';

/** One run of the fault suite: what it asked for, what the human decided, and what the API said. */
export interface PlannedRun {
  runId: string;
  trackingId: string;
  ref: string;
  amount: number;
  choice: Choice;
  /** The amount an `edit` sets. */
  editedAmount: number;
  /** The API answered 200 or 202 to the decision. */
  acknowledged: boolean;
}

/** What the API shows of a run at the end. */
export interface FinalView {
  status: RunStatus;
  output?: string;
  approvalStatus?: ApprovalStatus;
  pendingInRun: number;
  /** The last entry of the run's event log, to show where a stuck run stopped. */
  lastEvent?: string;
}

const EXPECTED_STATUS: Record<Choice, ApprovalStatus> = {
  approve: 'approved',
  edit: 'edited',
  reject: 'rejected',
};

/** Every way the end state can disagree with the decisions taken; empty when all is well. */
export function violations(
  runs: PlannedRun[],
  views: Map<string, FinalView>,
  executions: Execution[],
  inboxRunIds: Set<string>,
): string[] {
  const found: string[] = [];
  const applied = executions.filter((e) => e.kind === 'applied');
  const byRun = new Map<string, Execution[]>();
  for (const e of applied) byRun.set(e.runId, [...(byRun.get(e.runId) ?? []), e]);
  const keys = new Set<string>();
  for (const e of applied) {
    if (keys.has(e.key)) found.push(`idempotency key ${e.key} was applied twice`);
    keys.add(e.key);
  }
  const known = new Set(runs.map((r) => r.runId));
  for (const e of applied) if (!known.has(e.runId)) found.push(`a tool ran for unknown run ${e.runId}`);

  for (const run of runs) {
    const view = views.get(run.runId);
    const ran = byRun.get(run.runId) ?? [];
    const amount = run.choice === 'edit' ? run.editedAmount : run.amount;
    if (!run.acknowledged) found.push(`${run.runId}: the API never acknowledged its ${run.choice}`);
    if (!view) {
      found.push(`${run.runId}: not readable at the end`);
      continue;
    }
    if (view.status !== 'completed') {
      found.push(
        `${run.runId}: ${view.status} at the end (last event ${view.lastEvent}), expected completed`,
      );
    }
    if (view.approvalStatus !== EXPECTED_STATUS[run.choice]) {
      found.push(
        `${run.runId}: approval is ${view.approvalStatus}, but the acknowledged decision was ${run.choice}`,
      );
    }
    if (view.pendingInRun > 0) found.push(`${run.runId}: still shows ${view.pendingInRun} pending approvals`);
    if (inboxRunIds.has(run.runId)) found.push(`${run.runId}: still in the inbox after it finished`);
    if (run.choice === 'reject') {
      if (ran.length > 0)
        found.push(`${run.runId}: the tool ran ${ran.length} times although the call was rejected`);
      if (view.output?.includes(appliedText(run.ref, run.amount)))
        found.push(`${run.runId}: output claims a rejected change`);
      continue;
    }
    if (ran.length !== 1) found.push(`${run.runId}: the tool ran ${ran.length} times, expected once`);
    for (const e of ran) {
      if (e.trackingId !== run.trackingId)
        found.push(`${run.runId}: ran under approval ${e.trackingId}, expected ${run.trackingId}`);
      if (e.args.amount !== amount || e.args.ref !== run.ref) {
        found.push(
          `${run.runId}: ran with ${JSON.stringify(e.args)}, expected amount ${amount} after ${run.choice}`,
        );
      }
      if (e.approvedBy.length === 0) found.push(`${run.runId}: ran with no approver recorded`);
    }
    if (!view.output?.includes(appliedText(run.ref, amount))) {
      found.push(
        `${run.runId}: output ${JSON.stringify(view.output)} does not report ${appliedText(run.ref, amount)}`,
      );
    }
  }
  return found;
}
