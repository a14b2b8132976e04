/**
 * Custom search attributes every run keeps up to date, so one ListWorkflowExecutions call lists the
 * inbox. Countersign registers them at start (OperatorService.AddSearchAttributes).
 *
 * @example
 * ```ts
 * import { SEARCH_ATTRIBUTES } from 'countersign';
 *
 * const { pending, agent } = SEARCH_ATTRIBUTES;
 * const query = `${pending.name} != 0 AND ${agent.name} = 'support'`;
 * for await (const run of client.workflow.list({ query })) console.log(run.workflowId);
 * ```
 */
export const SEARCH_ATTRIBUTES = {
  /** Number of approvals the run is waiting on. The inbox filter is `WAITING_FILTER`. */
  pending: { name: 'CountersignPending', type: 'INT' },
  agent: { name: 'CountersignAgent', type: 'KEYWORD' },
  /**
   * Who the run is for, set when it starts: the requester may read and cancel their own runs, so a
   * list filters on it.
   */
  requester: { name: 'CountersignRequester', type: 'KEYWORD' },
  /** The run status (running, waiting, completed, failed, cancelled). */
  status: { name: 'CountersignStatus', type: 'KEYWORD' },
  /** Tools with a pending approval, for inbox filters by tool. */
  pendingTools: { name: 'CountersignPendingTools', type: 'KEYWORD_LIST' },
  /** Roles that may decide a pending approval, for inbox filters by role. */
  pendingRoles: { name: 'CountersignPendingRoles', type: 'KEYWORD_LIST' },
  /**
   * When the run last changed in a way an inbox is told of (an event in its log, its status, its
   * pending approvals), in workflow time: the inbox feed lists only runs changed since it last looked.
   */
  changedAt: { name: 'CountersignChangedAt', type: 'DATETIME' },
} as const;

/**
 * The inbox's filter: runs waiting on approvals. Not `> 0`, the same runs: a SQL store answers a
 * range on the count by sorting every waiting run before it returns the first page (about 40 ms
 * over 10,000 on SQLite), an inequality by walking its list order until the page is full (12 ms).
 *
 * @example
 * ```ts
 * import { SEARCH_ATTRIBUTES, WAITING_FILTER } from 'countersign';
 *
 * const query = `${WAITING_FILTER} AND ${SEARCH_ATTRIBUTES.agent.name} = 'support'`;
 * const { count } = await client.workflow.count(query);
 * ```
 */
export const WAITING_FILTER = `${SEARCH_ATTRIBUTES.pending.name} != 0`;

/**
 * Memo key holding the summary of pending approvals (ApprovalView[] without schemas).
 *
 * @example
 * ```ts
 * import type { ApprovalView } from 'countersign';
 * import { PENDING_MEMO_KEY } from './search-attributes.js';
 *
 * for await (const run of client.workflow.list({ query: 'CountersignPending != 0' })) {
 *   const pending = (run.memo?.[PENDING_MEMO_KEY] ?? []) as Omit<ApprovalView, 'schema'>[];
 *   console.log(run.workflowId, pending.map((approval) => approval.tool));
 * }
 * ```
 */
export const PENDING_MEMO_KEY = 'countersignPending';

/**
 * The task queue Countersign's worker polls unless configured otherwise.
 *
 * @example
 * ```ts
 * import { DEFAULT_TASK_QUEUE } from 'countersign';
 *
 * const taskQueue = process.env.TASK_QUEUE ?? DEFAULT_TASK_QUEUE; // 'countersign'
 * ```
 */
export const DEFAULT_TASK_QUEUE = 'countersign';
/**
 * The model of an agent that names none, unless the worker's settings say otherwise.
 *
 * @example
 * ```ts
 * import { DEFAULT_MODEL } from 'countersign';
 *
 * console.log(`support runs on ${support.model ?? DEFAULT_MODEL}`);
 * ```
 */
export const DEFAULT_MODEL = 'gpt-4o-mini';
