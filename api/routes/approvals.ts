import { createHash, randomUUID } from 'node:crypto';
import { Router, type Response } from 'express';
import {
  Channel,
  Decision,
  parseTrackingId,
  WAITING_FILTER,
  type DecisionOutcome,
} from '../../protocol/index.js';
import { accessRule } from '../access.js';
import { approverOf } from '../auth.js';
import type { ApiOptions } from '../context.js';
import { decide, readOutcome, refusal, unknownApproval } from '../decide.js';
import { getRunEvents } from '../../client/index.js';
import { HttpError, parse } from '../errors.js';
import { editPreview } from './edit-preview.js';
import {
  ApprovalListQuery,
  DECIDED,
  type ApprovalDetail,
  type ApprovalList,
  type ApprovalSummary,
  type DecisionApplied,
  type DecisionSubmitted,
} from '../schemas.js';
import { listPage, listQuery, type RunPage } from '../runs/run-lists.js';
import { readApproval, readState } from '../runs/run-reads.js';
import { withinWorkerWait } from '../runs/worker-wait.js';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

/** Keys are scoped to the approver, so two people can never collide on one. */
export function requestIdFor(approverId: string, key: string | undefined): string {
  if (key === undefined) return `req-${randomUUID()}`;
  if (!IDEMPOTENCY_KEY.test(key))
    throw new HttpError(400, 'Idempotency-Key must be 1 to 200 printable characters', {
      code: 'invalid_request',
    });
  return `idem-${createHash('sha256').update(`${approverId}\0${key}`).digest('base64url')}`;
}

/**
 * The revision an If-Match header names: one strong entity tag as the approval's ETag gives it.
 * `*`, a list or a weak tag names no one proposal, so it counts as none (428).
 */
export function revisionOf(header: string | undefined): number | undefined {
  const match = /^\s*"([1-9][0-9]{0,8})"\s*$/.exec(header ?? '');
  if (match) return Number(match[1]);
  // A bare number is what people type from the revision they read: say how to send it.
  const bare = /^\s*([1-9][0-9]{0,8})\s*$/.exec(header ?? '');
  if (bare)
    throw new HttpError(
      400,
      `If-Match takes the ETag as the approval gives it, quoted: If-Match: "${bare[1]}"`,
      {
        code: 'invalid_request',
      },
    );
  return undefined;
}

const outcomeLocation = (trackingId: string, requestId: string) =>
  `/api/approvals/${encodeURIComponent(trackingId)}/decisions/${encodeURIComponent(requestId)}`;

/** 200 with the applied outcome, the mapped error for a refusal, 202 with a poll location when not yet taken. */
function answer(res: Response, trackingId: string, requestId: string, outcome: DecisionOutcome | null): void {
  if (!outcome) {
    const location = outcomeLocation(trackingId, requestId);
    res
      .status(202)
      .location(location)
      .json({ requestId, status: 'submitted', location } satisfies DecisionSubmitted);
    return;
  }
  if (!outcome.accepted) throw refusal(outcome);
  res.json({ outcome } satisfies DecisionApplied);
}

export function approvalsRouter(options: ApiOptions): Router {
  const { client } = options;
  const router = Router();
  const access = accessRule(options);
  /** A list query narrowed to the runs the caller may read (all of them for an admin). */
  const readableBy = (query: string, res: Response) => {
    const clause = access.listClause(approverOf(res));
    return clause ? `${query} AND ${clause}` : query;
  };
  /** An approval of a run the caller may not read is a 404, as one that does not exist. */
  const mayRead = (res: Response, runId: string, trackingId: string) =>
    access.readable(client, approverOf(res), runId).catch((err: unknown) => {
      if (err instanceof HttpError && err.status === 404) throw unknownApproval(trackingId);
      throw err;
    });

  router.get('/', async (req, res) => {
    const query = parse(ApprovalListQuery, req.query, 'query');
    const matches = (a: ApprovalSummary) =>
      (!query.tool || a.tool === query.tool) && (!query.role || a.approvers.includes(query.role));
    let approvals: ApprovalSummary[];
    let page: RunPage;
    if (query.status === 'pending') {
      // The inbox is one list call a page: runs keep their pending approvals in memo and search attributes.
      const filter = listQuery({
        CountersignAgent: query.agent,
        CountersignPendingTools: query.tool,
        CountersignPendingRoles: query.role,
      });
      page = await listPage(
        client,
        options.namespace,
        readableBy(`${filter} AND ${WAITING_FILTER}`, res),
        query.limit,
        query.pageToken,
        options.signingSecret,
      );
      approvals = page.runs.flatMap((run) => run.pending).filter((a) => a.status === 'pending');
    } else {
      // Decided approvals are no longer in any memo: read the runs' state.
      const filter = listQuery({ CountersignAgent: query.agent });
      page = await listPage(
        client,
        options.namespace,
        readableBy(filter, res),
        query.limit,
        query.pageToken,
        options.signingSecret,
      );
      // Each read waits for its run's worker a bounded time; a run nobody answers for shows the
      // pending approvals of its memo.
      const states = await Promise.all(
        page.runs.map((run) => readState(client, run.summary.runId, options.workerWaitMs).catch(() => null)),
      );
      approvals = page.runs
        .flatMap((run, i): ApprovalSummary[] => states[i]?.approvals ?? run.pending)
        .filter((a) => query.status === 'all' || DECIDED.has(a.status));
    }
    const next = page.nextPageToken ? { nextPageToken: page.nextPageToken } : {};
    res.json({ approvals: approvals.filter(matches), ...next } satisfies ApprovalList);
  });

  router.get('/:trackingId', async (req, res) => {
    const { trackingId } = req.params;
    const parsed = parseTrackingId(trackingId);
    if (!parsed) throw unknownApproval(trackingId);
    const described = await mayRead(res, parsed.runId, trackingId);
    // Its schema and decisions come from the workflow alone: a worker that does not answer within
    // the bound is a 503 worker_not_answering with Retry-After (the inbox lists it from the memo).
    const approval = await readApproval(client, parsed.runId, trackingId, options.workerWaitMs, described);
    if (!approval) throw unknownApproval(trackingId);
    const events = await withinWorkerWait(client, parsed.runId, options.workerWaitMs, () =>
      getRunEvents(client, parsed.runId, 0, described.status.name !== 'RUNNING'),
    );
    const decisions = events.filter((e) => e.trackingId === trackingId && e.type !== 'approval.requested');
    // The revision is the entity tag a decision names in If-Match. It does not change when someone
    // signs, so it must not serve a conditional GET: never stored, never answered with a 304.
    res.set({ ETag: `"${approval.revision}"`, 'Cache-Control': 'no-store' });
    delete req.headers['if-none-match'];
    res.json({ ...approval, decisions } satisfies ApprovalDetail);
  });

  router.post('/:trackingId/preview', editPreview(options, mayRead));

  router.post('/:trackingId/decision', async (req, res) => {
    const { trackingId } = req.params;
    const decision = parse(Decision, req.body);
    const approver = approverOf(res);
    const parsed = parseTrackingId(trackingId);
    if (!parsed) throw unknownApproval(trackingId);
    // Someone who may not read the run learns nothing of it, not even that it waits for a role.
    const described = await mayRead(res, parsed.runId, trackingId);
    const key = req.get('idempotency-key');
    const requestId = requestIdFor(approver.id, key);
    // The inbox says so; email, Slack and chat decisions come only through their own routes.
    const channel = parse(
      Channel.exclude(['email', 'slack', 'chat']),
      req.get('x-countersign-channel') ?? 'api',
      'X-Countersign-Channel header',
    );
    const { outcome } = await decide(
      { client, agents: options.agents, waitMs: options.decisionWaitMs ?? 5_000, sealer: options.sealer },
      {
        trackingId,
        decision,
        approver,
        channel,
        requestId,
        idempotent: key !== undefined,
        revision: revisionOf(req.get('if-match')),
        described,
      },
    );
    answer(res, trackingId, requestId, outcome);
  });

  router.get('/:trackingId/decisions/:requestId', async (req, res) => {
    const { trackingId, requestId } = req.params;
    const parsed = parseTrackingId(trackingId);
    if (!parsed) throw unknownApproval(trackingId);
    await mayRead(res, parsed.runId, trackingId);
    answer(res, trackingId, requestId, await readOutcome(client, trackingId, requestId));
  });

  return router;
}
