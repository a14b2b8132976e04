import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  ApprovalView,
  CancelRequest,
  RunControl,
  DecisionOutcome,
  DecisionSignal,
  FieldError,
  JsonObject,
  PlanStep,
  RefusalCode,
  Requirement,
  RevokeStandingRequest,
  RunEvent,
  RunState,
} from '../protocol/index.js';
import type { ModelInput } from './activity-types.js';

/**
 * A human's decision on one approval, routed by its tracking id. From a client, `sendDecision` sends
 * it and waits for the outcome.
 *
 * @example
 * ```ts
 * import { getExternalWorkflowHandle, uuid4 } from '@temporalio/workflow';
 * import { decisionSignal } from 'countersign/workflow';
 *
 * // From your own workflow, which has looked the approval up:
 * await getExternalWorkflowHandle(runId).signal(decisionSignal, {
 *   trackingId,
 *   decision: { type: 'approve' },
 *   approver: { id: 'risk-engine', roles: ['automated-review'] },
 *   channel: 'api',
 *   requestId: uuid4(),
 *   revision,
 * });
 * ```
 */
export const decisionSignal = defineSignal<[DecisionSignal]>('decision');

/**
 * The same decision as `decisionSignal`, taken the same way (checked, applied or refused and recorded,
 * once per request id whichever of the two brings it), answered with what the workflow did as soon
 * as it has taken it. Only a worker can answer: `sendDecision` sends it first, with the request id as
 * the update id, and sends the signal instead when no worker answers in time or one without this
 * handler refuses it. A payload without a request id fails the update (the refusal is recorded).
 *
 * @example
 * ```ts
 * import { decisionUpdate } from 'countersign/workflow';
 *
 * const outcome = await client.workflow.getHandle(runId).executeUpdate(decisionUpdate, {
 *   args: [decision],
 *   updateId: decision.requestId,
 * });
 * if (!outcome.accepted) console.error(outcome.code, outcome.reason);
 * ```
 */
export const decisionUpdate = defineUpdate<DecisionOutcome, [DecisionSignal]>('decision');

/**
 * Who is about to cancel the run, and through which channel. Clients send it just before Temporal's
 * cancellation request (`cancelRun`), so the run records who cancelled it; a cancellation that
 * comes without it (from Temporal's own UI or CLI) is recorded as by nobody known.
 *
 * @example
 * ```ts
 * import { getExternalWorkflowHandle } from '@temporalio/workflow';
 * import { cancelSignal } from 'countersign/workflow';
 *
 * const run = getExternalWorkflowHandle(runId);
 * await run.signal(cancelSignal, { actor: 'onboarding', channel: 'api' });
 * await run.cancel();
 * ```
 */
export const cancelSignal = defineSignal<[CancelRequest]>('cancel');

/**
 * The whole run: transcript, approvals, the event log (the audit trail) and output. `getRunState`
 * also reads a closed run without a worker.
 *
 * @example
 * ```ts
 * import { stateQuery } from 'countersign/workflow';
 *
 * const state = await client.workflow.getHandle(runId).query(stateQuery);
 * ```
 */
export const stateQuery = defineQuery<RunState>('state');

/**
 * One approval by tracking id, or null when the run has none by that id.
 *
 * @example
 * ```ts
 * import { approvalQuery } from 'countersign/workflow';
 *
 * const approval = await client.workflow.getHandle(runId).query(approvalQuery, trackingId);
 * if (approval?.status === 'pending') console.log(`revision ${approval.revision} waits`);
 * ```
 */
export const approvalQuery = defineQuery<ApprovalView | null, [string]>('approval');

/**
 * What the workflow did with the decision signal carrying this request id, or null if not yet seen.
 *
 * @example
 * ```ts
 * import { decisionOutcomeQuery } from 'countersign/workflow';
 *
 * const outcome = await client.workflow.getHandle(runId).query(decisionOutcomeQuery, requestId);
 * ```
 */
export const decisionOutcomeQuery = defineQuery<DecisionOutcome | null, [string]>('decisionOutcome');

/** What an edit would ask for were it sent now (see `previewEdit`), or the refusal it would meet. */
export type EditPreview =
  | {
      ok: true;
      requirements: Requirement[];
      /** Who may not sign unless the policy allows self-approval. */
      requester?: string;
      allowSelfApproval: boolean;
    }
  | { ok: false; code: RefusalCode; reason: string; fieldErrors?: FieldError[] };

/**
 * Judges an edit as the decision would be judged, changing nothing: the approval's requirements with
 * the tier the edited arguments (or plan) move into. Arguments: tracking id, the edit, who edits.
 *
 * @example
 * ```ts
 * import { editPreviewQuery } from 'countersign/workflow';
 *
 * const preview = await handle.query(editPreviewQuery, trackingId, { args: { amount: 150_000 } }, 'alice');
 * if (preview.ok) for (const r of preview.requirements) console.log(r.count, r.roles, r.reason);
 * ```
 */
export const editPreviewQuery = defineQuery<
  EditPreview,
  [string, { args?: JsonObject; plan?: PlanStep[] }, string]
>('editPreview');

/**
 * The run's events after the given event id, for live streams and their resume.
 *
 * @example
 * ```ts
 * import { eventsQuery } from 'countersign/workflow';
 *
 * const newer = await client.workflow.getHandle(runId).query(eventsQuery, lastSeenId);
 * ```
 */
export const eventsQuery = defineQuery<RunEvent[], [number]>('events');

/**
 * Stops the run at its next step boundary (before its next model call, and before any tool call
 * that has not started); a tool already running finishes. Ignored while paused or finished.
 *
 * @example
 * ```ts
 * import { getExternalWorkflowHandle } from '@temporalio/workflow';
 * import { pauseSignal } from 'countersign/workflow';
 *
 * await getExternalWorkflowHandle(runId).signal(pauseSignal, { actor: 'watchdog', channel: 'api' });
 * ```
 */
export const pauseSignal = defineSignal<[RunControl]>('pause');

/**
 * Goes on from where the run stopped; its message, if any, reaches the model before its next step.
 * Ignored unless paused.
 *
 * @example
 * ```ts
 * import { getExternalWorkflowHandle } from '@temporalio/workflow';
 * import { resumeSignal } from 'countersign/workflow';
 *
 * await getExternalWorkflowHandle(runId).signal(resumeSignal, { actor: 'lee', channel: 'api', message: 'Use staging.' });
 * ```
 */
export const resumeSignal = defineSignal<[RunControl]>('resume');

/**
 * Ends a standing approval of the run at once: later calls like its call ask again. Taken only from
 * someone holding a role the approval it came from asked for; recorded either way.
 *
 * @example
 * ```ts
 * import { revokeStandingSignal } from 'countersign/workflow';
 *
 * await client.workflow
 *   .getHandle(runId)
 *   .signal(revokeStandingSignal, { trackingId, approver: { id: 'lee', roles: ['treasury'] }, channel: 'api' });
 * ```
 */
export const revokeStandingSignal = defineSignal<[RevokeStandingRequest]>('revokeStanding');

/**
 * The run's model input, for its own model call activity: the first `length` messages of the
 * transcript and the tools. Internal to Countersign's worker.
 */
export const modelInputQuery = defineQuery<ModelInput, [number]>('countersign.modelInput');
