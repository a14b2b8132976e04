import { WorkflowNotFoundError } from '@temporalio/client';
import { Router } from 'express';
import { Channel, parseTrackingId } from '../../protocol/index.js';
import { roleRefusal } from '../../protocol/decision-rules.js';
import { revokeStandingSignal } from '../../workflows/definitions.js';
import { endedReason, statusOf } from '../../workflows/standing-approvals.js';
import { accessRule } from '../access.js';
import { approverOf, publicApprover } from '../auth.js';
import type { ApiOptions } from '../context.js';
import { HttpError, parse } from '../errors.js';
import { readState, runHandle } from '../runs/run-reads.js';
import type { StandingRevokeAccepted } from '../schemas.js';

/**
 * `POST /api/runs/:runId/standing/:trackingId/revoke`: ends a standing approval of a run. The API
 * checks what it can (the run is readable and open, the standing approval active, the caller holds
 * a role the approval it came from asked for) before it signals; the run checks the role again.
 */
export function standingRouter(options: ApiOptions): Router {
  const { client } = options;
  const access = accessRule(options);
  const router = Router();

  router.post('/:runId/standing/:trackingId/revoke', async (req, res) => {
    const { runId, trackingId } = req.params;
    const caller = approverOf(res);
    const channel = parse(
      Channel.exclude(['email', 'slack', 'chat']),
      req.get('x-countersign-channel') ?? 'api',
      'X-Countersign-Channel header',
    );
    const description = await access.readable(client, caller, runId);
    const closed = () => new HttpError(409, `run ${runId} has already ended`, { code: 'run_closed' });
    if (description.status.name !== 'RUNNING') throw closed();
    const notFound = new HttpError(404, `no standing approval ${trackingId} in run ${runId}`, {
      code: 'not_found',
    });
    if (parseTrackingId(trackingId)?.runId !== runId) throw notFound;
    const state = await readState(client, runId, options.workerWaitMs);
    const standing = state.standing?.find((s) => s.trackingId === trackingId);
    if (!standing) throw notFound;
    const status = statusOf(standing);
    if (status !== 'active') throw new HttpError(409, endedReason(status), { code: 'standing_ended' });
    if (roleRefusal({ approvers: standing.roles }, caller.roles))
      throw new HttpError(403, `revoking it needs one of the roles ${standing.roles.join(', ')}`, {
        code: 'role_not_allowed',
      });
    await runHandle(client, runId)
      .signal(revokeStandingSignal, { trackingId, approver: publicApprover(caller), channel })
      .catch((err: unknown) => {
        // It ended between the look and the signal.
        throw err instanceof WorkflowNotFoundError ? closed() : err;
      });
    res.status(202).json({ runId, trackingId, status: 'revoking' } satisfies StandingRevokeAccepted);
  });

  return router;
}
