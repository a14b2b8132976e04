import { z } from 'zod';

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

/** `waiting` is a running workflow with at least one approval pending. */
export const RunStatus = z.enum(['running', 'waiting', 'completed', 'failed', 'cancelled']);
export type RunStatus = z.infer<typeof RunStatus>;
