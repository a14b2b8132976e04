import type { RequestHandler, Response } from 'express';
import { parseTrackingId } from '../../protocol/index.js';
import { unmeetableRequirements } from '../../protocol/unmeetable.js';
import { queryRun } from '../../client/query-run.js';
import { editPreviewQuery } from '../../workflows/definitions.js';
import { approverOf } from '../auth.js';
import type { ApiOptions } from '../context.js';
import { REFUSAL_STATUS, unknownApproval } from '../decide.js';
import { HttpError, parse } from '../errors.js';
import { onRun, runHandle } from '../runs/run-reads.js';
import { WORKER_WAIT_MS, withinWorkerWait } from '../runs/worker-wait.js';
import { EditPreviewRequest, type EditPreview } from '../schemas.js';

/**
 * `POST /api/approvals/:trackingId/preview`: what an edit would ask for were it sent now, judged by
 * the run itself (its policy, its running totals, the tier the edit moves into) and changing
 * nothing, so the inbox and the CLI can say it while the approver types. With the approvers file,
 * it also says which requirements nobody who exists can meet.
 */
export function editPreview(
  options: ApiOptions,
  mayRead: (res: Response, runId: string, trackingId: string) => Promise<unknown>,
): RequestHandler {
  return async (req, res) => {
    const trackingId = String(req.params.trackingId);
    const edit = parse(EditPreviewRequest, req.body);
    const parsed = parseTrackingId(trackingId);
    if (!parsed) throw unknownApproval(trackingId);
    await mayRead(res, parsed.runId, trackingId);
    const preview = await onRun(parsed.runId, () =>
      withinWorkerWait(options.client, parsed.runId, options.workerWaitMs ?? WORKER_WAIT_MS, () =>
        queryRun(
          runHandle(options.client, parsed.runId),
          editPreviewQuery,
          trackingId,
          edit,
          approverOf(res).id,
        ),
      ),
    );
    if (!preview.ok) {
      if (preview.code === 'unknown_approval') throw unknownApproval(trackingId);
      throw new HttpError(REFUSAL_STATUS[preview.code], preview.reason, {
        code: preview.code,
        fields: preview.fieldErrors,
      });
    }
    const { requirements } = preview;
    const warnings = options.approvers && unmeetableRequirements(requirements, options.approvers, preview);
    res.json({ requirements, ...(warnings ? { warnings } : {}) } satisfies EditPreview);
  };
}
