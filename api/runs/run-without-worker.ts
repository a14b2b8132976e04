/**
 * A run as Temporal holds it without a worker: what `GET /api/runs/:runId` answers when the run's
 * worker does not answer in time, rather than making its reader wait for one.
 */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type proto from '@temporalio/proto';
import { PENDING_MEMO_KEY } from '../../protocol/index.js';
import { searchAttributeKeys } from '../../workflows/search-attributes.js';
import { decodePayload } from '../../client/decode-payload.js';
import { pendingFromMemo } from './run-lists.js';
import { runStatusOf } from './run-status.js';
import type { RunDetail } from '../schemas.js';
import { historyEvents } from '../live/history-pages.js';

type Payload = proto.temporal.api.common.v1.IPayload;

/**
 * The run from its description (status, search attributes, memo) and its execution's first event
 * (the task, and the start of a run that continued as new). The transcript, events and decided
 * approvals live in the workflow's state: left empty, and `worker` says why.
 */
export async function runWithoutWorker(
  client: Client,
  namespace: string,
  description: WorkflowExecutionDescription,
  why: Pick<RunDetail, 'worker' | 'unreadable'> = { worker: 'not_answering' },
): Promise<RunDetail> {
  const attributes = description.typedSearchAttributes;
  const start = await startOf(client, namespace, description);
  const pending = pendingFromMemo(
    description.status.name === 'RUNNING',
    description.memo?.[PENDING_MEMO_KEY],
  );
  const requester = attributes.get(searchAttributeKeys.requester);
  return {
    runId: description.workflowId,
    agent: attributes.get(searchAttributeKeys.agent) ?? '',
    input: start.input,
    ...(requester !== undefined ? { requester } : {}),
    status: runStatusOf(description.status.code, attributes.get(searchAttributeKeys.status)),
    transcript: [],
    pending,
    approvals: pending,
    events: [],
    audit: [],
    startedAt: start.startedAt ?? description.startTime.toISOString(),
    ...why,
  };
}

/** The task a run was given and, for a run that continued as new, when its chain started. */
async function startOf(
  client: Client,
  namespace: string,
  description: WorkflowExecutionDescription,
): Promise<{ input: string; startedAt?: string }> {
  const execution = { workflowId: description.workflowId, runId: description.runId };
  let payloads: Payload[] = [];
  for await (const first of historyEvents(client, namespace, execution, { pageSize: 1 })) {
    payloads = first.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
    break;
  }
  // The workflow's arguments: its RunInput, then what a run that continued as new carries.
  // Payloads this API cannot decode (a key it does not hold) leave the task unsaid.
  const [input, carried] = await Promise.all(
    payloads.slice(0, 2).map((p) => decodePayload(client, p).catch(() => undefined)),
  );
  const field = (value: unknown, name: string) => {
    const found =
      typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
    return typeof found === 'string' ? found : undefined;
  };
  const startedAt = field(carried, 'startedAt');
  return { input: field(input, 'input') ?? '', ...(startedAt !== undefined ? { startedAt } : {}) };
}
