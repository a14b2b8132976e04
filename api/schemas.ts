import { z } from 'zod';
import { CONTENT_REF } from '../content-store/content-store.js';
import {
  AgentSpec,
  ApproverConfig,
  ApprovalStatus,
  ApprovalView,
  JsonObject,
  PlanStep,
  Requirement,
  DecisionOutcome,
  Name,
  RunEvent,
  RunState,
  RunStatus,
  RunSummary,
  RunUnreadable,
} from '../protocol/index.js';
import { SAFE_VALUE } from './runs/run-lists.js';

/** Request and response shapes of the REST API beyond the protocol's own: one source for validation and OpenAPI. */

const Limit = (fallback: number) => z.coerce.number().int().min(1).max(500).default(fallback);
/** A role to filter by: what a list query can match (see `listQuery`). */
const Filter = z.string().regex(SAFE_VALUE, 'letters, digits and _ . : @ -, up to 200');
/** The `nextPageToken` of the page before. */
const PageToken = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,4000}$/, 'a nextPageToken this API returned')
  .optional();
/** Present when more runs remain: pass it as `pageToken` for the next page. */
const NextPageToken = z.string().optional();

export const RunListQuery = z.strictObject({
  status: RunStatus.optional(),
  agent: Name.optional(),
  limit: Limit(100),
  pageToken: PageToken,
});
export type RunListQuery = z.output<typeof RunListQuery>;

export const ApprovalListQuery = z.strictObject({
  status: z.enum(['pending', 'decided', 'all']).default('pending'),
  agent: Name.optional(),
  tool: Name.optional(),
  role: Filter.optional(),
  /**
   * Runs read per page, in Temporal's list order: 50 by default, what a reviewer's first screen
   * needs; up to 1,000 for a client that reads every page (the CLI).
   */
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  pageToken: PageToken,
});
export type ApprovalListQuery = z.output<typeof ApprovalListQuery>;

export const RunCreated = z.strictObject({ runId: z.string() });
export type RunCreated = z.output<typeof RunCreated>;
export const RunList = z.strictObject({ runs: z.array(RunSummary), nextPageToken: NextPageToken });
export type RunList = z.output<typeof RunList>;
export const CancelAccepted = z.strictObject({ runId: z.string(), status: z.literal('cancelling') });
export type CancelAccepted = z.output<typeof CancelAccepted>;
/** What a pause or resume request may carry: why, for the audit trail (and, on resume, the model). */
export const RunControlBody = z.strictObject({ message: z.string().min(1).max(4000).optional() });
export type RunControlBody = z.output<typeof RunControlBody>;
export const RunControlAccepted = z.strictObject({
  runId: z.string(),
  status: z.enum(['pausing', 'resuming']),
});
export type RunControlAccepted = z.output<typeof RunControlAccepted>;
/** A standing approval's revocation, signalled: the run records it, and later calls ask again. */
export const StandingRevokeAccepted = z.strictObject({
  runId: z.string(),
  trackingId: z.string(),
  status: z.literal('revoking'),
});
export type StandingRevokeAccepted = z.output<typeof StandingRevokeAccepted>;

/** A stored tool output's reference, as a run's transcript names it (`GET /api/runs/:runId/outputs/:ref`). */
export const OutputRef = z.string().regex(CONTENT_REF, 'a content reference: sha256: and 64 hex digits');
export type OutputRef = z.output<typeof OutputRef>;

/** Pending approvals in a list come from run memos and carry no schema. */
export const ApprovalSummary = ApprovalView.partial({ schema: true });
export type ApprovalSummary = z.output<typeof ApprovalSummary>;
export const ApprovalList = z.strictObject({
  approvals: z.array(ApprovalSummary),
  nextPageToken: NextPageToken,
});
export type ApprovalList = z.output<typeof ApprovalList>;
/**
 * The run's state plus its audit trail: the approval entries of its event log. With `worker:
 * 'not_answering'` (no worker answered within the API's `workerWaitMs`), it is what Temporal holds
 * without one: status, task, requester, start, and the pending approvals from the run's memo, without
 * their schema; transcript, events, audit and decided approvals are empty, and `turns` is left out.
 */
export const RunDetail = RunState.extend({
  turns: RunState.shape.turns.optional(),
  pending: z.array(ApprovalSummary),
  approvals: z.array(ApprovalSummary),
  audit: z.array(RunEvent),
  worker: z
    .literal('not_answering')
    .optional()
    .describe(
      "Present when the run's worker did not answer in time: the run as Temporal holds it without one (transcript, events, audit and decided approvals empty, no turns, pending approvals without schema).",
    ),
  /** The run's payloads do not decode here (a key this API does not hold): what Temporal shows of it. */
  unreadable: RunUnreadable.optional(),
});
export type RunDetail = z.output<typeof RunDetail>;
export const ApprovalDetail = ApprovalView.extend({ decisions: z.array(RunEvent) });
export type ApprovalDetail = z.output<typeof ApprovalDetail>;

/** An edit to judge without sending it: the arguments of a call (or output under review), or a plan. */
export const EditPreviewRequest = z.strictObject({
  args: JsonObject.optional(),
  plan: z.array(PlanStep).optional(),
});
export type EditPreviewRequest = z.output<typeof EditPreviewRequest>;
/** What the edit would ask for were it sent now: the approval's requirements, with any its new tier adds. */
export const EditPreview = z.strictObject({
  requirements: z.array(Requirement).min(1),
  /**
   * Requirements no approver of the approvers file can meet, in words (too few hold the role and may
   * sign). A warning: the edit may still be sent. Absent when the API has no approvers file.
   */
  warnings: z.array(z.string()).optional(),
});
export type EditPreview = z.output<typeof EditPreview>;

export const DecisionApplied = z.strictObject({ outcome: DecisionOutcome });
export type DecisionApplied = z.output<typeof DecisionApplied>;
export const DecisionSubmitted = z.strictObject({
  requestId: z.string(),
  status: z.literal('submitted'),
  /** Where to poll for the outcome. */
  location: z.string(),
});
export type DecisionSubmitted = z.output<typeof DecisionSubmitted>;

/** The caller, as their token names them: never the token itself. */
export const Me = z.strictObject({ approver: ApproverConfig.omit({ token: true }) });
export type Me = z.output<typeof Me>;

export const AgentList = z.strictObject({ agents: z.array(AgentSpec) });
export type AgentList = z.output<typeof AgentList>;

export const AUDIT_EVENTS = new Set<RunEvent['type']>([
  'approval.requested',
  'approval.decided',
  'decision.refused',
  'approval.escalated',
  'approval.settled',
  'tool.unknown',
  'standing.granted',
  'standing.used',
  'standing.revoked',
  'run.paused',
  'run.resumed',
  'run.cancelled',
]);

export const DECIDED = new Set<ApprovalStatus>(ApprovalStatus.options.filter((s) => s !== 'pending'));

/** Bytes as proto3 JSON writes them: base64, standard or URL-safe, padding optional. */
const Base64Bytes = z
  .string()
  .regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'base64')
  .describe('Bytes, base64.');
/**
 * Temporal's `Payloads` message as proto3 JSON, the body of the remote codec protocol (the Temporal
 * Web UI's and CLI's codec requests, and the answers). Fields other than `metadata` and `data` are
 * dropped.
 */
export const CodecPayloads = z.object({
  payloads: z.array(
    z.object({
      metadata: z.record(z.string(), Base64Bytes).optional(),
      data: Base64Bytes.optional(),
    }),
  ),
});
export type CodecPayloads = z.output<typeof CodecPayloads>;
