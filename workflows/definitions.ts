import { defineQuery, defineSignal } from '@temporalio/workflow';
import type {
  ApprovalView,
  CancelRequest,
  DecisionOutcome,
  DecisionSignal,
  RunEvent,
  RunState,
} from '../protocol/index.js';

/** A human's decision on one approval, routed by its tracking id. */
export const decisionSignal = defineSignal<[DecisionSignal]>('decision');

/**
 * Who is about to cancel the run, and through which channel. Clients send it just before Temporal's
 * cancellation request (`cancelRun`), so the run records who cancelled it; a cancellation that
 * comes without it (from Temporal's own UI or CLI) is recorded as by nobody known.
 */
export const cancelSignal = defineSignal<[CancelRequest]>('cancel');

/** The whole run: transcript, approvals, the event log (the audit trail) and output. */
export const stateQuery = defineQuery<RunState>('state');

/** One approval by tracking id, or null when the run has none by that id. */
export const approvalQuery = defineQuery<ApprovalView | null, [string]>('approval');

/** What the workflow did with the decision signal carrying this request id, or null if not yet seen. */
export const decisionOutcomeQuery = defineQuery<DecisionOutcome | null, [string]>('decisionOutcome');

/** The run's events after the given event id, for live streams and their resume. */
export const eventsQuery = defineQuery<RunEvent[], [number]>('events');
