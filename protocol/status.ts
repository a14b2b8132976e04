import { z } from 'zod';

/**
 * Where an approval stands: `pending` until it settles as `approved`, `edited` (approved with new
 * arguments), `rejected`, `responded` (a human answered in the tool's place), `expired` (nobody
 * decided in time) or `cancelled` (with its run).
 *
 * @example
 * ```ts
 * import type { ApprovalStatus } from 'countersign';
 *
 * const ranTheTool = (status: ApprovalStatus) => status === 'approved' || status === 'edited';
 * ```
 */
export const ApprovalStatus = z.enum([
  'pending',
  'approved',
  'edited',
  'rejected',
  'responded',
  'expired',
  'cancelled',
]);
export type ApprovalStatus = z.infer<typeof ApprovalStatus>;

/**
 * `waiting` is a running workflow with at least one approval pending; `paused` one a person stopped
 * between its steps, until someone resumes it (its pending approvals stay decidable).
 *
 * @example
 * ```ts
 * import { getRunState } from 'countersign/client';
 *
 * const state = await getRunState(client, runId);
 * if (state.status === 'waiting') console.log(`${state.pending.length} approval(s) wait`);
 * ```
 */
export const RunStatus = z.enum(['running', 'waiting', 'paused', 'completed', 'failed', 'cancelled']);
export type RunStatus = z.infer<typeof RunStatus>;
