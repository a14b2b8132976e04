/**
 * A run driven through a client typed by the OpenAPI document alone: `countersign-api.d.ts` is what
 * openapi-typescript generates from the document the API serves, written beside this file by
 * test/api/typed-client.test.ts, which type-checks the two together before it runs this.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './countersign-api.js';

type ErrorCode = components['schemas']['ErrorCode'];

export interface DriveRunOptions {
  baseUrl: string;
  /** Bearer tokens: who starts the run, and who may approve its call. */
  requester: string;
  approver: string;
  agent: string;
  input: string;
  /** Calls `read` until it returns a value (lists and memos catch up a little after a write). */
  waitFor<T>(read: () => Promise<T | undefined>, what: string): Promise<T>;
}

export async function driveRun(options: DriveRunOptions) {
  const as = (token: string) =>
    createClient<paths>({ baseUrl: options.baseUrl, headers: { authorization: `Bearer ${token}` } });
  const requester = as(options.requester);
  const approver = as(options.approver);

  const started = await requester.POST('/api/runs', { body: { agent: options.agent, input: options.input } });
  if (!started.data) throw new Error(`start: ${started.response.status} ${started.error?.error.code}`);
  const { runId } = started.data;
  const byRun = { params: { path: { runId } } };

  const waiting = await options.waitFor(async () => {
    const { data } = await approver.GET('/api/runs/{runId}', byRun);
    return data?.pending[0];
  }, 'the run to wait on an approval');
  const byApproval = { params: { path: { trackingId: waiting.trackingId } } };
  const shown = await approver.GET('/api/approvals/{trackingId}', byApproval);
  if (!shown.data) throw new Error(`read approval: ${shown.response.status} ${shown.error?.error.code}`);
  const ifMatch = shown.response.headers.get('etag') ?? `"${shown.data.revision}"`;

  const decision = {
    params: { ...byApproval.params, header: { 'If-Match': ifMatch } },
    body: { type: 'approve' as const },
  };
  const approved = await approver.POST('/api/approvals/{trackingId}/decision', decision);
  if (!approved.data) throw new Error(`approve: ${approved.response.status} ${approved.error?.error.code}`);
  // Sent again, the same decision meets a settled approval: an error body whose code the type names.
  const again = await approver.POST('/api/approvals/{trackingId}/decision', decision);
  const refused: ErrorCode | undefined = again.error?.error.code;

  const finished = await options.waitFor(async () => {
    const { data } = await requester.GET('/api/runs/{runId}', byRun);
    return data && ['completed', 'failed', 'cancelled'].includes(data.status) ? data : undefined;
  }, 'the run to finish');
  return {
    runId,
    tool: shown.data.tool,
    args: shown.data.args,
    approved: 'outcome' in approved.data ? approved.data.outcome.accepted : approved.data.status,
    refused: { status: again.response.status, code: refused },
    status: finished.status,
    output: finished.output,
  };
}
