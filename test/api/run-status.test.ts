import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import type { Client, WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { runStatusClause, runStatusOf } from '../../api/runs/run-status.js';
import { RunStatus, SEARCH_ATTRIBUTES } from '../../protocol/index.js';
import { searchAttributeKeys } from '../../workflows/search-attributes.js';
import { getTestTemporal, type TestTemporal } from '../support/temporal-server.js';
import { installTestRuntime } from '../support/worker.js';
import type { StatusRunEnd, statusWorkflow } from './fixtures/status-workflow.js';

// Real runs on a real Temporal (`temporal server start-dev`, or TEMPORAL_ADDRESS), in every
// execution status a run can end in, crossed with every value Countersign's own status attribute
// can hold: each run must be listed by exactly the status filter for the status the list shows it in.

const Status = proto.temporal.api.enums.v1.WorkflowExecutionStatus;
type ExecutionStatus = proto.temporal.api.enums.v1.WorkflowExecutionStatus;

const WORKFLOWS_PATH = fileURLToPath(new URL('./fixtures/status-workflow.ts', import.meta.url));

/** How the test brings a run into each execution status. */
const EXECUTIONS: {
  name: string;
  code: ExecutionStatus;
  end: StatusRunEnd;
  then?: 'cancel' | 'terminate';
  timeout?: string;
}[] = [
  { name: 'Running', code: Status.WORKFLOW_EXECUTION_STATUS_RUNNING, end: 'wait' },
  { name: 'Completed', code: Status.WORKFLOW_EXECUTION_STATUS_COMPLETED, end: 'complete' },
  { name: 'Failed', code: Status.WORKFLOW_EXECUTION_STATUS_FAILED, end: 'fail' },
  { name: 'Canceled', code: Status.WORKFLOW_EXECUTION_STATUS_CANCELED, end: 'wait', then: 'cancel' },
  { name: 'Terminated', code: Status.WORKFLOW_EXECUTION_STATUS_TERMINATED, end: 'wait', then: 'terminate' },
  { name: 'TimedOut', code: Status.WORKFLOW_EXECUTION_STATUS_TIMED_OUT, end: 'wait', timeout: '2 seconds' },
  // Its second run completes; both are listed.
  { name: 'ContinuedAsNew', code: Status.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW, end: 'continue' },
];

/** Every value the run's own attribute can hold, none included. */
const OWN_VALUES: (string | undefined)[] = [undefined, ...RunStatus.options, 'unknown'];

/** One run (a workflow execution) as the test made it. */
interface Run {
  label: string;
  workflowId: string;
  runId: string;
  code: ExecutionStatus;
  /** The own status attribute as Temporal describes the run. */
  own: string | undefined;
  /** ... and as the test set it. */
  meant: string | undefined;
}

/** Polls until `probe` returns a value; fails after a generous bound (no timing is asserted). */
async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

let temporal: TestTemporal;
let client: Client;
let worker: Worker;
let running: Promise<void>;
const taskQueue = `run-status-${randomUUID()}`;
/** Scopes every list to this test's runs, on a shared cluster too. */
const scope = `TaskQueue = '${taskQueue}'`;

before(async () => {
  // Runs fail here on purpose; the worker's warnings about them are noise.
  installTestRuntime('ERROR');
  temporal = await getTestTemporal();
  client = temporal.client;
  worker = await Worker.create({
    connection: temporal.nativeConnection,
    namespace: temporal.namespace,
    taskQueue,
    workflowsPath: WORKFLOWS_PATH,
  });
  running = worker.run();
});

after(async () => {
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await running;
  await temporal?.stop();
});

/** Every run of this test in the list (for `clause`, if given): its status and own attribute. */
async function list(clause?: string): Promise<Map<string, { code: ExecutionStatus; own: unknown }>> {
  const { payloadConverter } = client.options.loadedDataConverter;
  const found = new Map<string, { code: ExecutionStatus; own: unknown }>();
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.listWorkflowExecutions({
      namespace: temporal.namespace,
      query: clause ? `${scope} AND ${clause}` : scope,
      pageSize: 1000,
      nextPageToken,
    });
    for (const info of page.executions ?? []) {
      const payload = info.searchAttributes?.indexedFields?.[SEARCH_ATTRIBUTES.status.name];
      found.set(info.execution!.runId!, {
        code: info.status!,
        own: payload ? payloadConverter.fromPayload(payload) : undefined,
      });
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return found;
}

/** Until the run has taken its first workflow task, which sets its own attribute. */
async function started(handle: WorkflowHandle): Promise<void> {
  // Started, task scheduled, task started, task completed (with its upsert, if any, right after).
  await until(
    async () => ((await handle.describe()).historyLength >= 4 ? true : undefined),
    `${handle.workflowId} to take its first workflow task`,
  );
}

/** The run as Temporal describes it (exact, unlike a list), once it is in the status wanted. */
async function described(
  workflowId: string,
  runId: string | undefined,
  code: ExecutionStatus,
  label: string,
) {
  const handle = client.workflow.getHandle(workflowId, runId);
  return until(async () => {
    const description = await handle.describe();
    if (description.status.code !== code) return undefined;
    return {
      runId: description.runId,
      own: description.typedSearchAttributes.get(searchAttributeKeys.status),
    };
  }, `${label} to be ${Status[code]}`);
}

async function makeRun(execution: (typeof EXECUTIONS)[number], own: string | undefined): Promise<Run[]> {
  const label = `${execution.name} with own status ${own ?? 'unset'}`;
  const workflowId = `run-status-${execution.name}-${own ?? 'unset'}-${randomUUID()}`;
  const handle = await client.workflow.start<typeof statusWorkflow>('statusWorkflow', {
    workflowId,
    taskQueue,
    args: [{ own, end: execution.end }],
    ...(execution.timeout
      ? {
          workflowExecutionTimeout: execution.timeout,
          // Set at the start too: the run may time out before a worker has run it.
          ...(own !== undefined
            ? { typedSearchAttributes: [{ key: searchAttributeKeys.status, value: own }] }
            : {}),
        }
      : {}),
  });
  // A run that waits is running from its start: it has its attribute once it took its first task.
  if (execution.end === 'wait' && !execution.timeout) await started(handle);
  if (execution.then) {
    if (execution.then === 'cancel') await handle.cancel();
    else await handle.terminate('run-status test');
  }
  const first = await described(workflowId, handle.firstExecutionRunId, execution.code, label);
  const runs: Run[] = [
    { label, workflowId, runId: first.runId, code: execution.code, own: first.own, meant: own },
  ];
  if (execution.end === 'continue') {
    const next = await described(workflowId, undefined, Status.WORKFLOW_EXECUTION_STATUS_COMPLETED, label);
    assert.notEqual(next.runId, first.runId);
    runs.push({
      label: `the run ${label} continued as`,
      workflowId,
      runId: next.runId,
      code: Status.WORKFLOW_EXECUTION_STATUS_COMPLETED,
      own: next.own,
      meant: own,
    });
  }
  return runs;
}

test('a status filter selects exactly the runs the list shows with that status', async () => {
  const runs = (
    await Promise.all(EXECUTIONS.flatMap((execution) => OWN_VALUES.map((own) => makeRun(execution, own))))
  ).flat();
  // Each combination was made as meant: Temporal describes each run with the attribute it was given.
  for (const run of runs)
    assert.equal(run.own, run.meant, `${run.label}: described with own status ${run.own}`);
  assert.equal(runs.length, EXECUTIONS.length * OWN_VALUES.length + OWN_VALUES.length);

  // Lists lag behind writes: wait until this test's list shows every run as Temporal describes it.
  await until(async () => {
    const listed = await list();
    if (!listed || listed.size !== runs.length) return undefined;
    return runs.every((run) => {
      const entry = listed.get(run.runId);
      return entry?.code === run.code && entry.own === run.own;
    })
      ? true
      : undefined;
  }, `the list to show all ${runs.length} runs in their final state`);

  const selectedBy = new Map<string, RunStatus[]>(runs.map((run) => [run.runId, []]));
  for (const status of RunStatus.options) {
    for (const runId of (await list(runStatusClause(status))).keys()) {
      const selected = selectedBy.get(runId);
      assert.ok(selected, `${status} selects a run this test did not make: ${runId}`);
      selected.push(status);
    }
  }
  for (const run of runs) {
    assert.deepEqual(selectedBy.get(run.runId), [runStatusOf(run.code, run.own)], run.label);
  }
  // Every list status the runs can have was met, so every clause selected something.
  assert.deepEqual(new Set(runs.map((run) => runStatusOf(run.code, run.own))), new Set(RunStatus.options));

  // Leave nothing running on a shared cluster.
  await Promise.all(
    runs
      .filter((run) => run.code === Status.WORKFLOW_EXECUTION_STATUS_RUNNING)
      .map((run) => client.workflow.getHandle(run.workflowId, run.runId).terminate('run-status test over')),
  );
});
