import { z } from 'zod';
import { ApproverIdentity } from '../protocol/index.js';
import type { Authenticate, FindApprover } from './context.js';
import { HttpError, fieldErrors } from './errors.js';

/** The protocol's own rule, with fields the host's user object adds dropped rather than refused. */
const Carried = z.object(ApproverIdentity.shape);

/**
 * The identity a host's hook gave, as the protocol can carry it into list queries, runs and
 * decisions; one it cannot (a backslash in the id, an id over 200 characters, over 50 roles) is a
 * 403 naming the rule, on every route, instead of a failure deep in a read or a signal.
 */
export function carriedIdentity(identity: ApproverIdentity): ApproverIdentity {
  const result = Carried.safeParse(identity);
  if (result.success) return result.data;
  const fields = fieldErrors(result.error);
  const rules = fields.map((f) => `${f.path || 'the identity'}: ${f.message}`).join('; ');
  throw new HttpError(
    403,
    `your sign-in names an identity Countersign cannot carry (${rules}); ask whoever runs this service to change it`,
    { code: 'identity_not_supported', fields },
  );
}

/** The host's hooks, each answer checked by the protocol's rule. */
export function checkedHooks(hooks: { authenticate: Authenticate; findApprover: FindApprover }): {
  authenticate: Authenticate;
  findApprover: FindApprover;
} {
  const check = (identity: ApproverIdentity | undefined) => identity && carriedIdentity(identity);
  return {
    authenticate: async (req) => check(await hooks.authenticate(req)),
    findApprover: async (id) => check(await hooks.findApprover(id)),
  };
}
