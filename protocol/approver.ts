import { z } from 'zod';

/**
 * Ids and role names are matched in Temporal list queries (who may see which runs): plain text,
 * without control characters or backslashes.
 */
const Identifier = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\\\p{Cc}]+$/u, 'no control characters or backslashes');

/** One person who may decide, as the approvers file lists them. Tokens never leave the API. */
export const ApproverConfig = z.strictObject({
  id: Identifier,
  name: z.string().max(200).optional(),
  email: z.email().optional(),
  roles: z.array(Identifier).min(1),
  token: z.string().min(16, 'tokens must be at least 16 characters'),
});
export type ApproverConfig = z.infer<typeof ApproverConfig>;

export const ApproversFile = z.strictObject({ approvers: z.array(ApproverConfig).min(1) });
export type ApproversFile = z.infer<typeof ApproversFile>;
