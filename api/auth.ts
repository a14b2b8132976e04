import { timingSafeEqual, createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { identityOf, type Approver, type ApproverConfig, type ApproverIdentity } from '../protocol/index.js';
import type { Authenticate } from './context.js';
import { HttpError } from './errors.js';

// Hashing first gives equal-length buffers, so the comparison takes the same time for every token.
const digest = (value: string) => createHash('sha256').update(value).digest();

export function findApprover(approvers: ApproverConfig[], token: string): ApproverConfig | undefined {
  const given = digest(token);
  let found: ApproverConfig | undefined;
  for (const approver of approvers) if (timingSafeEqual(digest(approver.token), given)) found = approver;
  return found;
}

/** Bearer tokens of the approvers file name approvers. */
export function tokenAuthentication(approvers: ApproverConfig[]): Authenticate {
  return (req) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
    const approver = match ? findApprover(approvers, match[1]!) : undefined;
    return approver && identityOf(approver);
  };
}

/** Every API request names its approver, through the hook; it is then `approverOf(res)`. */
export function requireApprover(authenticate: Authenticate): RequestHandler {
  return async (req, res, next) => {
    const approver = await authenticate(req);
    if (!approver) {
      res.set('WWW-Authenticate', 'Bearer realm="countersign"');
      throw new HttpError(401, req.get('authorization') ? 'unknown token' : 'a bearer token is required', {
        code: 'unauthorized',
      });
    }
    res.locals.approver = approver;
    next();
  };
}

export function approverOf(res: Response): ApproverIdentity {
  return res.locals.approver as ApproverIdentity;
}

/** What the workflow is told about an approver: never more than who and which roles. */
export function publicApprover(approver: ApproverIdentity): Approver {
  return { id: approver.id, roles: approver.roles };
}
