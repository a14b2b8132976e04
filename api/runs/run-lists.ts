/** Lists of runs, read raw from Temporal's visibility store: the inbox, the runs list, the event feed. */
import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import {
  PENDING_MEMO_KEY,
  SEARCH_ATTRIBUTES,
  type ApprovalView,
  type RunSummary,
} from '../../protocol/index.js';
import type { RunAccess } from './run-access.js';
import { HttpError } from '../errors.js';
import { openPageToken, sealPageToken } from './page-tokens.js';
import { timestampMs } from '../timestamps.js';
import { runStatusOf } from './run-status.js';
import { decodePayload } from '../../client/decode-payload.js';

const WORKFLOW_TYPE = 'agentWorkflow';

const RUNNING = proto.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;

/** Values in list queries come from callers: only plain names reach the query string. */
export const SAFE_VALUE = /^[A-Za-z0-9_.:@-]{1,200}$/;

export function listQuery(filters: Record<string, string | undefined>): string {
  // A run that continued as new is listed once, as its latest execution.
  const clauses = [`WorkflowType = '${WORKFLOW_TYPE}'`, `ExecutionStatus != 'ContinuedAsNew'`];
  for (const [attribute, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    if (!SAFE_VALUE.test(value))
      throw new HttpError(400, `invalid filter value for ${attribute}`, { code: 'invalid_request' });
    clauses.push(`${attribute} = '${value}'`);
  }
  return clauses.join(' AND ');
}

/** The pending approvals a run's memo lists; none once it has closed. */
export function pendingFromMemo(running: boolean, memo: unknown): ApprovalView[] {
  return running && Array.isArray(memo) ? (memo as ApprovalView[]) : [];
}

/** One page of a list: each run's summary and pending approvals, and the token of the next page. */
export interface RunPage {
  runs: { summary: RunSummary; pending: ApprovalView[] }[];
  nextPageToken?: string;
}

/**
 * A page of runs in Temporal's list order (open runs first, then the latest closed), with a token
 * for the next page as a URL-safe string. Read raw, decoding only the memo's pending approvals and
 * Countersign's own search attributes: the SDK's list has no page tokens.
 */
export async function listPage(
  client: Client,
  namespace: string,
  query: string,
  pageSize: number,
  pageToken: string | undefined,
  signingSecret: string,
): Promise<RunPage> {
  const page = await client.workflowService.listWorkflowExecutions({
    namespace,
    query,
    pageSize,
    nextPageToken: pageToken ? openPageToken(signingSecret, query, pageToken) : undefined,
  });
  const decode = payloadDecoder(client);
  const runs = await Promise.all(
    (page.executions ?? []).map(async (info) => {
      const attributes = info.searchAttributes?.indexedFields ?? {};
      const runStatus = runStatusOf(info.status, decode(attributes[SEARCH_ATTRIBUTES.status.name]));
      const running = info.status === RUNNING;
      // One run whose memo this API cannot decode (a key it does not hold) is listed with what its
      // search attributes say, never failing the page: its pending count, not its approvals.
      const memo = await decodePayload(client, info.memo?.fields?.[PENDING_MEMO_KEY]).then(
        (value) => ({ pending: pendingFromMemo(running, value) }),
        () => undefined,
      );
      const pendingCount = decode(attributes[SEARCH_ATTRIBUTES.pending.name]);
      const agent = decode(attributes[SEARCH_ATTRIBUTES.agent.name]);
      const summary: RunSummary = {
        runId: info.execution?.workflowId ?? '',
        agent: typeof agent === 'string' ? agent : '',
        status: runStatus,
        pending: memo ? memo.pending.length : running && typeof pendingCount === 'number' ? pendingCount : 0,
        startedAt: new Date(info.startTime ? timestampMs(info.startTime) : 0).toISOString(),
        ...(info.closeTime ? { closedAt: new Date(timestampMs(info.closeTime)).toISOString() } : {}),
        ...(memo ? {} : { unreadable: { reason: 'payload_undecodable' as const } }),
      };
      return { summary, pending: memo?.pending ?? [] };
    }),
  );
  const next = page.nextPageToken?.length
    ? sealPageToken(signingSecret, query, page.nextPageToken)
    : undefined;
  return { runs, ...(next ? { nextPageToken: next } : {}) };
}

type Payload = proto.temporal.api.common.v1.IPayload;

function payloadDecoder(client: Client): (payload: Payload | null | undefined) => unknown {
  const { payloadConverter } = client.options.loadedDataConverter;
  return (payload) => (payload ? payloadConverter.fromPayload(payload) : undefined);
}

/** What decides who may read a run (see access.ts), from its raw list entry's search attributes. */
export function accessOfAttributes(
  fields: Record<string, Payload>,
  decode: (payload: Payload | null | undefined) => unknown,
): RunAccess {
  const agent = decode(fields[SEARCH_ATTRIBUTES.agent.name]);
  const requester = decode(fields[SEARCH_ATTRIBUTES.requester.name]);
  const roles = decode(fields[SEARCH_ATTRIBUTES.pendingRoles.name]);
  return {
    ...(typeof agent === 'string' ? { agent } : {}),
    ...(typeof requester === 'string' ? { requester } : {}),
    pendingRoles: Array.isArray(roles) ? roles.filter((r): r is string => typeof r === 'string') : [],
  };
}

function once<T>(compute: () => T): () => T {
  let value: { v: T } | undefined;
  return () => (value ??= { v: compute() }).v;
}

/** Bounds what one follower of every run keeps in memory. */
const FOLLOW_LIMIT = 50_000;

/** What a follower of every run needs of each: less than the SDK's decoded list entries. */
export interface LiveRun {
  runId: string;
  running: boolean;
  /**
   * When the run last changed, as it stamps it (`CountersignChangedAt`, epoch ms); undefined for a
   * run that has not stamped (started before runs did, or stepped only by older workers).
   */
  changedAt?: number;
  /**
   * What the visibility store last recorded of the run, as one opaque string: it changes when the
   * run's status, search attributes or memo change (a decision, a deadline, an approval asked for),
   * a little after the change. Not its history length: a SQL visibility store records that only
   * when the run closes, and none records it on every event.
   */
  listed: string;
  /**
   * What decides who may read it, as the list last showed it: decoded when asked, for the few runs
   * with news, not for every run of every poll.
   */
  access(): RunAccess;
}

/**
 * The runs that changed at or after `changedSince` (epoch ms, their change-time attribute) and, with
 * `unstamped`, the runs that carry no change time: running, or closed at or after `unstamped`. What
 * a follower of all runs' events needs to look at: however many runs wait, only those that changed
 * are listed. Read raw, page by page, the three small attributes that decide who may read a run
 * decoded only for a run with news. The list lags behind the runs: a run that just changed may
 * still show as it was.
 */
export async function listChangedRuns(
  client: Client,
  namespace: string,
  changedSince: number,
  unstamped?: number,
): Promise<LiveRun[]> {
  const changedAt = SEARCH_ATTRIBUTES.changedAt.name;
  const iso = (ms: number) => new Date(ms).toISOString();
  const runs = await listLiveRuns(
    client,
    namespace,
    `${listQuery({})} AND ${changedAt} >= '${iso(changedSince)}'`,
  );
  // Asked apart, not OR-ed into the one query: a SQL store answers each from an index, and the
  // two together by reading every row (about 50 ms a poll over 10,000 waiting runs on SQLite,
  // against 2 ms for both).
  if (unstamped !== undefined && runs.length < FOLLOW_LIMIT)
    runs.push(
      ...(await listLiveRuns(
        client,
        namespace,
        `${listQuery({})} AND ${changedAt} IS NULL AND (ExecutionStatus = 'Running' OR CloseTime >= '${iso(unstamped)}')`,
        FOLLOW_LIMIT - runs.length,
      )),
    );
  return runs;
}

/** The runs a query lists, page by page, up to `limit`, with what a follower needs of each. */
async function listLiveRuns(
  client: Client,
  namespace: string,
  query: string,
  limit = FOLLOW_LIMIT,
): Promise<LiveRun[]> {
  const changedAt = SEARCH_ATTRIBUTES.changedAt.name;
  const decode = payloadDecoder(client);
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
      const fields = info.searchAttributes?.indexedFields ?? {};
      const stamp = decode(fields[changedAt]);
      const changed = typeof stamp === 'string' ? Date.parse(stamp) : Number.NaN;
      runs.push({
        runId: info.execution?.workflowId ?? '',
        running: info.status === RUNNING,
        ...(Number.isNaN(changed) ? {} : { changedAt: changed }),
        listed: listedRecord(info),
        access: once(() => accessOfAttributes(fields, decode)),
      });
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken && runs.length < limit);
  return runs;
}

/** A digest of what the list shows of a run, undecoded; fields in name order (stores vary it). */
function listedRecord(info: proto.temporal.api.workflow.v1.IWorkflowExecutionInfo): string {
  const hash = createHash('sha1');
  const field = (value: unknown) => hash.update(String(value ?? '')).update('\0');
  field(info.status);
  field(info.closeTime ? timestampMs(info.closeTime) : '');
  field(info.historyLength);
  field(info.stateTransitionCount);
  const fields = (map: Record<string, proto.temporal.api.common.v1.IPayload> | null | undefined) => {
    for (const name of Object.keys(map ?? {}).sort()) {
      field(name);
      hash.update(map![name]?.data ?? new Uint8Array());
      hash.update('\0');
    }
    hash.update('\x01');
  };
  fields(info.searchAttributes?.indexedFields);
  fields(info.memo?.fields);
  return hash.digest('base64');
}
