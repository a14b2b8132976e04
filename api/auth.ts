import { timingSafeEqual, createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import type { Approver, ApproverConfig } from '../protocol/index.js';
import { HttpError } from './errors.js';

// Hashing first gives equal-length buffers, so the comparison takes the same time for every token.
const digest = (value: string) => createHash('sha256').update(value).digest();

export function findApprover(approvers: ApproverConfig[], token: string): ApproverConfig | undefined {
  const given = digest(token);
  let found: ApproverConfig | undefined;
  for (const approver of approvers) if (timingSafeEqual(digest(approver.token), given)) found = approver;
  return found;
}

/** Bearer tokens name approvers; the approver is then available as `approverOf(res)`. */
export function requireApprover(approvers: ApproverConfig[]): RequestHandler {
  return (req, res, next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
    const approver = match ? findApprover(approvers, match[1]!) : undefined;
    if (!approver) {
      res.set('WWW-Authenticate', 'Bearer realm="countersign"');
      throw new HttpError(401, match ? 'unknown token' : 'a bearer token is required', {
        code: 'unauthorized',
      });
    }
    res.locals.approver = approver;
    next();
  };
}

export function approverOf(res: Response): ApproverConfig {
  return res.locals.approver as ApproverConfig;
}

/** What the workflow is told about an approver: never the token. */
export function publicApprover(approver: ApproverConfig): Approver {
  return { id: approver.id, roles: approver.roles };
}
