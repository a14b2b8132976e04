import { createHash } from 'node:crypto';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { getDecisionOutcome, sendDecision, UnknownApprovalError } from '../client/index.js';
import type { AgentDefinition } from '../define/index.js';
import {
  parseTrackingId,
  type ApprovalView,
  type ApproverIdentity,
  type Channel,
  type Decision,
  type DecisionOutcome,
  type RefusalCode,
  type SignalDecision,
} from '../protocol/index.js';
import type { SecretSealer } from '../secrets/sealer.js';
import { publicApprover } from './auth.js';
import {
  channelRefusal,
  decisionTypeRefusal,
  roleRefusal,
  settledRefusal,
  staleRevisionRefusal,
  standingRefusal,
  unnamedRevisionRefusal,
} from '../protocol/decision-rules.js';
import { checkDecision } from './edit-validation.js';
import { HttpError } from './errors.js';
import { onRun, readApproval, readPendingFromMemo } from './runs/run-reads.js';

export const REFUSAL_STATUS: Record<RefusalCode, number> = {
  unknown_approval: 404,
  already_settled: 409,
  decision_not_allowed: 400,
  invalid_arguments: 400,
  role_not_allowed: 403,
  self_approval: 403,
  already_approved_by_you: 409,
  policy_denied: 400,
  stale_revision: 412,
  revision_required: 428,
  link_used: 409,
  standing_not_allowed: 400,
};

export interface DecisionRequest {
  trackingId: string;
  decision: Decision;
  approver: ApproverIdentity;
  channel: Channel;
  requestId: string;
  /** A retry under the same idempotency key gets the first answer, whatever happened since. */
  idempotent: boolean;
  linkNonce?: string;
  /** The revision of the proposal the approver was shown (REST: If-Match; links: signed). */
  revision: number | undefined;
  /** The run as the caller's access check just described it: read once, not again here. */
  described?: Pick<WorkflowExecutionInfo, 'memo' | 'status'>;
}

/**
 * What a request is, for idempotency: the same key sent with another approval, decision or
 * revision is another request, refused rather than answered with the first one's outcome.
 */
export function fingerprintOf(
  request: Pick<DecisionRequest, 'trackingId' | 'decision' | 'revision'>,
): string {
  // A secret is never digested: a hash of a short code or password is as good as the code itself.
  const decision = 'secret' in request.decision ? { ...request.decision, secret: true } : request.decision;
  return createHash('sha256')
    .update(JSON.stringify([request.trackingId, request.revision ?? null, canonical(decision)]))
    .digest('base64url');
}

/** JSON with object keys sorted, so equal bodies digest alike whatever their key order. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
  );
}

/** The same idempotency key, used for another request: 422, whatever the first one's outcome. */
function reusedKey(outcome: DecisionOutcome, fingerprint: string): void {
  if (outcome.fingerprint !== undefined && outcome.fingerprint !== fingerprint) {
    throw new HttpError(422, 'this Idempotency-Key was already used for another request', {
      code: 'idempotency_key_reused',
      extra: { trackingId: outcome.trackingId },
    });
  }
}

/** The applied outcome, or null when the workflow has not taken the decision within the wait. */
/**
 * The workflow's answer (null: not within the wait), and the approval as the API read it before
 * sending (absent when a retried request was answered from its first outcome).
 */
export interface DecisionResult {
  outcome: DecisionOutcome | null;
  approval?: ApprovalView;
}

export function unknownApproval(trackingId: string): HttpError {
  return new HttpError(404, `no approval ${trackingId}`, { code: 'unknown_approval' });
}

export async function readOutcome(
  client: Client,
  trackingId: string,
  requestId: string,
): Promise<DecisionOutcome | null> {
  const parsed = parseTrackingId(trackingId);
  if (!parsed) throw unknownApproval(trackingId);
  return onRun(parsed.runId, () => getDecisionOutcome(client, parsed.runId, requestId));
}

/**
 * Everything the API can check before a signal is checked here (known, pending, role, decision
 * type, arguments against the tool's schema); the workflow then checks it all again and decides.
 */
export async function decide(
  deps: { client: Client; agents: AgentDefinition[]; waitMs: number; sealer?: SecretSealer },
  request: DecisionRequest,
): Promise<DecisionResult> {
  const { client } = deps;
  const parsed = parseTrackingId(request.trackingId);
  if (!parsed) throw unknownApproval(request.trackingId);
  const fingerprint = fingerprintOf(request);
  if (request.idempotent) {
    // Bounded: with no worker up the query cannot be answered, and the workflow dedupes a resent
    // request id anyway.
    const earlier = await client
      .withDeadline(Date.now() + deps.waitMs, () =>
        readOutcome(client, request.trackingId, request.requestId),
      )
      .catch((err: unknown) => {
        if (err instanceof HttpError) throw err;
        return null;
      });
    if (earlier) {
      reusedKey(earlier, fingerprint);
      return { outcome: earlier };
    }
  }
  // Pending approvals come from the memo, which needs no worker; only a settled or unknown id
  // needs the workflow's own answer.
  const approval = await readPendingFromMemo(client, parsed.runId, request.trackingId, request.described)
    .then((pending) => pending ?? readApproval(client, parsed.runId, request.trackingId))
    .catch((err: unknown) => {
      if (err instanceof HttpError && err.status === 404) throw unknownApproval(request.trackingId);
      throw err;
    });
  if (!approval) throw unknownApproval(request.trackingId);
  // A link never decides a secret, not even "nobody supplies it": the inbox or the CLI does.
  const closed = channelRefusal(approval.kind, request.channel, request.linkNonce !== undefined);
  if (closed) throw new HttpError(403, closed.reason, { code: closed.code, secretApproval: approval });
  // A retry may be the request that settled it, its answer lost on the way back (the API restarted,
  // the outcome read failed): sent again, the workflow answers with that first outcome, or refuses.
  if (settledRefusal(approval) && !request.idempotent) {
    throw new HttpError(409, `approval ${request.trackingId} is already ${approval.status}`, {
      code: 'already_settled',
      extra: { status: approval.status },
    });
  }
  // A stale revision is refused by the workflow, which records the refusal in the audit trail.
  // Where the API words a rule's refusal its own way, it names the tool or the header to send.
  if (roleRefusal(approval, request.approver.roles)) {
    throw new HttpError(
      403,
      `deciding ${approval.tool} needs one of the roles ${approval.approvers.join(', ')}`,
      {
        code: 'role_not_allowed',
      },
    );
  }
  const notAllowed = decisionTypeRefusal(approval, request.decision.type);
  if (notAllowed) throw new HttpError(400, notAllowed.reason, { code: notAllowed.code });
  const noStanding = standingRefusal(approval, request.decision);
  if (noStanding) throw new HttpError(400, noStanding.reason, { code: noStanding.code });
  if (unnamedRevisionRefusal(request.revision, true)) {
    throw new HttpError(428, 'a decision must name the revision it was made on (If-Match: "<revision>")', {
      code: 'revision_required',
      extra: { current: approval },
    });
  }
  const fields = checkDecision(deps.agents, approval, request.decision);
  if (fields.length > 0) throw new HttpError(400, 'invalid arguments', { code: 'invalid_arguments', fields });
  const decision = sealed(request.decision, approval, deps.sealer);
  try {
    return await onRun(parsed.runId, () =>
      sendDecision(
        client,
        {
          trackingId: request.trackingId,
          decision,
          approver: publicApprover(request.approver),
          channel: request.channel,
          requestId: request.requestId,
          linkNonce: request.linkNonce,
          revision: request.revision,
          fingerprint,
        },
        { waitMs: deps.waitMs },
      ),
    ).then(async (outcome) => {
      if (outcome) reusedKey(outcome, fingerprint);
      // Changed between the API's read and the workflow's check: show the approver the new one.
      if (outcome && !outcome.accepted && outcome.code === 'stale_revision') {
        const current = await readApproval(client, parsed.runId, request.trackingId).catch(() => null);
        const stale = current && staleRevisionRefusal(current, request.revision);
        if (stale) throw new HttpError(412, stale.reason, { code: stale.code, extra: { current } });
      }
      return { outcome, approval };
    });
  } catch (err) {
    if (err instanceof UnknownApprovalError) throw unknownApproval(request.trackingId);
    throw err;
  }
}

/**
 * The decision as the run may see it: a secret sealed for the tool's activity, bound to its
 * approval and name. The value typed never leaves this process.
 */
function sealed(
  decision: Decision,
  approval: ApprovalView,
  sealer: SecretSealer | undefined,
): SignalDecision {
  if (decision.type !== 'respond' || decision.secret === undefined) return decision;
  if (!sealer || !approval.secret) {
    throw new HttpError(
      501,
      'this Countersign API holds no secret keys, so it cannot take a secret (COUNTERSIGN_SECRET_KEYS)',
      {
        code: 'secret_input_unavailable',
      },
    );
  }
  const { secret, ...rest } = decision;
  return {
    ...rest,
    sealed: sealer.seal(secret, { trackingId: approval.trackingId, name: approval.secret.name }),
  };
}

/** A refused outcome as the HTTP error it maps to. */
export function refusal(outcome: DecisionOutcome): HttpError {
  const code = outcome.code ?? 'decision_not_allowed';
  return new HttpError(REFUSAL_STATUS[code], outcome.reason ?? `decision refused: ${code}`, {
    code,
    fields: outcome.fieldErrors,
    extra: { outcome },
  });
}
