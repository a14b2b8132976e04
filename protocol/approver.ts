import { z } from 'zod';

/**
 * Ids and role names are matched in Temporal list queries (who may see which runs): plain text,
 * without control characters or backslashes.
 */
const Identifier = z
  .string()
  .min(1)
  .max(200, 'at most 200 characters')
  // Control characters spelled as ranges (what \p{Cc} matches): the OpenAPI document carries this
  // pattern, and other languages' regular expressions (schemathesis's Python) lack \p{Cc}.
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  .regex(/^[^\\\u0000-\u001f\u007f-\u009f]+$/u, 'no control characters or backslashes');
/** A decision carries at most this many of its approver's roles (the decision signal's `Approver`). */
const Roles = z.array(Identifier).max(50, 'at most 50 roles');

/**
 * A person the API has authenticated: who they are and the roles a policy names them by. Your own
 * authentication hook returns one; the approvers file adds a token to each. The API refuses one
 * outside these rules (`403 identity_not_supported`, naming the rule) rather than carry it.
 *
 * @example
 * ```ts
 * import type { ApproverIdentity } from 'countersign';
 *
 * const lee: ApproverIdentity = {
 *   id: 'lee',
 *   name: 'Lee Park',
 *   email: 'lee@example.com',
 *   roles: ['support-lead'],
 * };
 * ```
 */
export const ApproverIdentity = z.strictObject({
  id: Identifier,
  name: z.string().max(200).optional(),
  email: z.email().optional(),
  /**
   * Their Slack member id (`U…`, `W…` on Enterprise Grid), when it is not found by `email`
   * (`users.lookupByEmail`): Slack messages and buttons are matched to them by it.
   */
  slackId: z
    .string()
    .regex(/^[UW][A-Z0-9]{2,30}$/, 'a Slack member id (U… or W…)')
    .optional(),
  roles: Roles,
});
export type ApproverIdentity = z.infer<typeof ApproverIdentity>;

/**
 * One person who may decide, as the approvers file lists them. Tokens never leave the API.
 *
 * @example
 * ```ts
 * import { randomBytes } from 'node:crypto';
 * import { ApproverConfig } from 'countersign';
 *
 * const token = randomBytes(24).toString('base64url');
 * const sam = ApproverConfig.parse({ id: 'sam', roles: ['finance'], token });
 * ```
 */
export const ApproverConfig = ApproverIdentity.extend({
  roles: Roles.min(1),
  token: z.string().min(16, 'tokens must be at least 16 characters'),
});
export type ApproverConfig = z.infer<typeof ApproverConfig>;

/**
 * The approvers file: everyone who may decide, with a bearer token each, for the API's token
 * authentication (when you give no `authenticate` hook) and the CLI.
 *
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * import { ApproversFile } from 'countersign';
 * import { countersignRouter } from 'countersign/api';
 *
 * const { approvers } = ApproversFile.parse(JSON.parse(readFileSync('approvers.json', 'utf8')));
 * app.use('/approvals', countersignRouter({ client, agents, approvers, signingSecret, publicUrl }));
 * ```
 */
export const ApproversFile = z.strictObject({ approvers: z.array(ApproverConfig).min(1) });
export type ApproversFile = z.infer<typeof ApproversFile>;

/**
 * Who an approver is, without anything else they carry (a token): what is safe to pass on.
 *
 * @example
 * ```ts
 * import { createNotifier, identityOf } from './approver.js';
 *
 * const notifier = createNotifier({ ...notifierOptions, approvers: approvers.map(identityOf) });
 * ```
 */
export function identityOf({ id, name, email, slackId, roles }: ApproverIdentity): ApproverIdentity {
  return {
    id,
    roles,
    ...(name !== undefined ? { name } : {}),
    ...(email !== undefined ? { email } : {}),
    ...(slackId !== undefined ? { slackId } : {}),
  };
}
