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

/**
 * A person the API has authenticated: who they are and the roles a policy names them by. Your own
 * authentication hook returns one; the approvers file adds a token to each.
 */
export const ApproverIdentity = z.strictObject({
  id: Identifier,
  name: z.string().max(200).optional(),
  email: z.email().optional(),
  roles: z.array(Identifier),
});
export type ApproverIdentity = z.infer<typeof ApproverIdentity>;

/** One person who may decide, as the approvers file lists them. Tokens never leave the API. */
export const ApproverConfig = ApproverIdentity.extend({
  roles: z.array(Identifier).min(1),
  token: z.string().min(16, 'tokens must be at least 16 characters'),
});
export type ApproverConfig = z.infer<typeof ApproverConfig>;

export const ApproversFile = z.strictObject({ approvers: z.array(ApproverConfig).min(1) });
export type ApproversFile = z.infer<typeof ApproversFile>;

/** Who an approver is, without anything else they carry (a token): what is safe to pass on. */
export function identityOf({ id, name, email, roles }: ApproverIdentity): ApproverIdentity {
  return { id, roles, ...(name !== undefined ? { name } : {}), ...(email !== undefined ? { email } : {}) };
}
