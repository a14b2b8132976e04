import { status } from '@grpc/grpc-js';
import {
  isGrpcServiceError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionInfo,
} from '@temporalio/client';
import proto from '@temporalio/proto';
import {
  PENDING_MEMO_KEY,
  SEARCH_ATTRIBUTES,
  isRunId,
  type ApprovalView,
  type RunState,
  type RunSummary,
} from '../protocol/index.js';
import { getFinalState, getRunState } from '../client/index.js';
import { approvalQuery } from '../workflows/definitions.js';
import { HttpError } from './errors.js';
import { runStatusOf } from './run-status.js';

export const WORKFLOW_TYPE = 'agentWorkflow';

const RUNNING = proto.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;

/** Values in list queries come from callers: only plain names reach the query string. */
const SAFE_VALUE = /^[A-Za-z0-9_.:@-]{1,200}$/;

export function listQuery(filters: Record<string, string | undefined>): string {
  const clauses = [`WorkflowType = '${WORKFLOW_TYPE}'`];
  for (const [attribute, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    if (!SAFE_VALUE.test(value))
      throw new HttpError(400, `invalid filter value for ${attribute}`, { code: 'invalid_request' });
    clauses.push(`${attribute} = '${value}'`);
  }
  return clauses.join(' AND ');
}

function pendingOf(info: Pick<WorkflowExecutionInfo, 'memo' | 'status'>): ApprovalView[] {
  return pendingFromMemo(info.status.name === 'RUNNING', info.memo?.[PENDING_MEMO_KEY]);
}

function pendingFromMemo(running: boolean, memo: unknown): ApprovalView[] {
  return running && Array.isArray(memo) ? (memo as ApprovalView[]) : [];
}

/** One page of a list: each run's summary and pending approvals, and the token of the next page. */
export interface RunPage {
  runs: { summary: RunSummary; pending: ApprovalView[] }[];
  nextPageToken?: string;
}

/**
 * A page of runs, newest first, with a token for the next page as a URL-safe string. Read raw,
 * decoding only the memo's pending approvals and Countersign's own search attributes: the SDK's
 * list has no page tokens.
 */
export async function listPage(
  client: Client,
  namespace: string,
  query: string,
  pageSize: number,
  pageToken: string | undefined,
): Promise<RunPage> {
  const page = await client.workflowService
    .listWorkflowExecutions({
      namespace,
      query,
      pageSize,
      nextPageToken: pageToken ? Buffer.from(pageToken, 'base64url') : undefined,
    })
    .catch((err: unknown) => {
      if (pageToken && isGrpcServiceError(err) && err.code === status.INVALID_ARGUMENT)
        throw new HttpError(400, 'pageToken is not one this API returned', { code: 'invalid_request' });
      throw err;
    });
  const { payloadConverter } = client.options.loadedDataConverter;
  const decode = (payload: proto.temporal.api.common.v1.IPayload | null | undefined): unknown =>
    payload ? payloadConverter.fromPayload(payload) : undefined;
  const runs = (page.executions ?? []).map((info) => {
    const attributes = info.searchAttributes?.indexedFields ?? {};
    const runStatus = runStatusOf(info.status, decode(attributes[SEARCH_ATTRIBUTES.status.name]));
    const pending = pendingFromMemo(info.status === RUNNING, decode(info.memo?.fields?.[PENDING_MEMO_KEY]));
    const agent = decode(attributes[SEARCH_ATTRIBUTES.agent.name]);
    const summary: RunSummary = {
      runId: info.execution?.workflowId ?? '',
      agent: typeof agent === 'string' ? agent : '',
      status: runStatus,
      pending: pending.length,
      startedAt: new Date(info.startTime ? timestampMs(info.startTime) : 0).toISOString(),
      ...(info.closeTime ? { closedAt: new Date(timestampMs(info.closeTime)).toISOString() } : {}),
    };
    return { summary, pending };
  });
  const next = page.nextPageToken?.length ? Buffer.from(page.nextPageToken).toString('base64url') : undefined;
  return { runs, ...(next ? { nextPageToken: next } : {}) };
}

/** Bounds what one follower of every run keeps in memory. */
const FOLLOW_LIMIT = 50_000;

/** What a follower of every run needs of each: less than the SDK's decoded list entries. */
export interface LiveRun {
  runId: string;
  running: boolean;
  /** As the visibility store last recorded it, which may lag behind the run. */
  historyLength: number;
  closeTime?: number;
}

/**
 * Every running run, and those closed at or after `closedSince` (epoch ms): what a follower of all
 * runs' events needs to look at, however many runs wait. Older closed runs have nothing new to say.
 * Read raw, page by page: decoding every run's memo and search attributes once a second would cost
 * the API more than the rest of following them.
 */
export async function listLiveRuns(
  client: Client,
  namespace: string,
  closedSince: number,
): Promise<LiveRun[]> {
  const since = new Date(closedSince).toISOString();
  const query = `${listQuery({})} AND (ExecutionStatus = 'Running' OR CloseTime >= '${since}')`;
  const runs: LiveRun[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.listWorkflowExecutions({
      namespace,
      query,
      pageSize: 1000,
      nextPageToken,
    });
    for (const info of page.executions ?? []) {
      const closeTime = info.closeTime ? timestampMs(info.closeTime) : undefined;
      runs.push({
        runId: info.execution?.workflowId ?? '',
        running: info.status === RUNNING,
        historyLength: Number(info.historyLength ?? 0),
        ...(closeTime !== undefined ? { closeTime } : {}),
      });
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken && runs.length < FOLLOW_LIMIT);
  return runs;
}

/** A run's live history length, from the server alone (no worker); undefined when it cannot be read. */
export async function liveHistoryLength(
  client: Client,
  namespace: string,
  runId: string,
): Promise<number | undefined> {
  try {
    const { workflowExecutionInfo } = await client.workflowService.describeWorkflowExecution({
      namespace,
      execution: { workflowId: runId },
    });
    return Number(workflowExecutionInfo?.historyLength ?? 0);
  } catch {
    return undefined;
  }
}

/**
 * When the run's last workflow task to complete before `before` (epoch ms) completed; -Infinity
 * when none did; undefined when the history cannot be read now. A run stamps its events with the
 * start of the workflow task that wrote them, and its tasks run one after another, so every event
 * written from `before` on is stamped at or after this moment. A server-only read (no worker).
 */
export async function lastTaskBefore(
  client: Client,
  namespace: string,
  runId: string,
  before: number,
): Promise<number | undefined> {
  let nextPageToken: Uint8Array | undefined;
  try {
    do {
      const page = await client.workflowService.getWorkflowExecutionHistoryReverse({
        namespace,
        execution: { workflowId: runId },
        maximumPageSize: 50,
        nextPageToken,
      });
      for (const event of page.history?.events ?? []) {
        const time = event.eventTime ? timestampMs(event.eventTime) : 0;
        if (event.workflowTaskCompletedEventAttributes && time < before) return time;
      }
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
    return Number.NEGATIVE_INFINITY;
  } catch {
    return undefined;
  }
}

function timestampMs(time: { seconds?: unknown; nanos?: number | null }): number {
  return Number(time.seconds ?? 0) * 1000 + Math.floor((time.nanos ?? 0) / 1e6);
}

/** Runs the call; an unknown or malformed run id is a 404. */
export async function onRun<T>(runId: string, read: () => Promise<T>): Promise<T> {
  if (!isRunId(runId)) throw new HttpError(404, `no run ${runId}`, { code: 'not_found' });
  try {
    return await read();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError)
      throw new HttpError(404, `no run ${runId}`, { code: 'not_found' });
    throw err;
  }
}

export function runHandle(client: Client, runId: string) {
  return client.workflow.getHandle(runId);
}

export function readState(client: Client, runId: string): Promise<RunState> {
  return onRun(runId, () => getRunState(client, runId));
}

export function readApproval(
  client: Client,
  runId: string,
  trackingId: string,
): Promise<ApprovalView | null> {
  return onRun(runId, async () => {
    const handle = runHandle(client, runId);
    const { status } = await handle.describe();
    const final = status.name !== 'RUNNING' ? await getFinalState(client, runId) : undefined;
    if (final) return final.approvals.find((approval) => approval.trackingId === trackingId) ?? null;
    return handle.query(approvalQuery, trackingId);
  });
}

/**
 * A pending approval as the run's memo shows it (without its schema), read from Temporal alone:
 * no worker needs to be up, so a decision can be taken while every worker is down.
 */
export async function readPendingFromMemo(
  client: Client,
  runId: string,
  trackingId: string,
): Promise<ApprovalView | null> {
  const info = await describeRun(client, runId);
  return pendingOf(info).find((view) => view.trackingId === trackingId) ?? null;
}

export async function describeRun(client: Client, runId: string) {
  return onRun(runId, () => runHandle(client, runId).describe());
}

/**
 * When the run's history last grew: the time of its last event, a server-only read (no worker).
 * Unknown counts as now, so the run is read.
 */
export async function lastChange(client: Client, namespace: string, runId: string): Promise<number> {
  try {
    const { history } = await client.workflowService.getWorkflowExecutionHistoryReverse({
      namespace,
      execution: { workflowId: runId },
      maximumPageSize: 1,
    });
    const time = history?.events?.[0]?.eventTime;
    return time ? timestampMs(time) : Date.now();
  } catch {
    return Date.now();
  }
}
