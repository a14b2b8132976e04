/**
 * Custom search attributes every run keeps up to date, so one ListWorkflowExecutions call lists the
 * inbox. Countersign registers them at start (OperatorService.AddSearchAttributes).
 */
export const SEARCH_ATTRIBUTES = {
  /** Number of approvals the run is waiting on. The inbox filter is `CountersignPending > 0`. */
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
} as const;

/** Memo key holding the summary of pending approvals (ApprovalView[] without schemas). */
export const PENDING_MEMO_KEY = 'countersignPending';

/** The task queue Countersign's worker polls unless configured otherwise. */
export const DEFAULT_TASK_QUEUE = 'countersign';
/** The model of an agent that names none, unless the worker's settings say otherwise. */
export const DEFAULT_MODEL = 'gpt-4o-mini';
