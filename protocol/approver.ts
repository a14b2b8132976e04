import { z } from 'zod';

/** One person who may decide, as the approvers file lists them. Tokens never leave the API. */
export const ApproverConfig = z.strictObject({
  id: z.string().min(1).max(200),
  name: z.string().max(200).optional(),
  email: z.email().optional(),
  roles: z.array(z.string().min(1)).min(1),
  token: z.string().min(16, 'tokens must be at least 16 characters'),
});
export type ApproverConfig = z.infer<typeof ApproverConfig>;

export const ApproversFile = z.strictObject({ approvers: z.array(ApproverConfig).min(1) });
export type ApproversFile = z.infer<typeof ApproversFile>;
