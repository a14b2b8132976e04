import type { Engine } from './engine.js';
import { status } from '@grpc/grpc-js';
import { RpcError, invalid, notFound } from './errors.js';
import { Status, type Payload, type temporal } from './proto.js';
import { Run, newId, type Txn } from './run.js';
import { mergeAttributes } from './search-attributes.js';
import { durationMs, msDuration, msTimestamp } from './time.js';

type StartRequest = temporal.api.workflowservice.v1.IStartWorkflowExecutionRequest;
type Payloads = temporal.api.common.v1.IPayloads | null | undefined;

const DEFAULT_WORKFLOW_TASK_TIMEOUT_MS = 10_000;
/** How many recent signal/cancel request ids a run remembers for dedupe. */
const REMEMBERED_REQUEST_IDS = 100;

interface NewRun {
  namespace: string;
  workflowId: string;
  runId: string;
  workflowType: string;
  taskQueue: string;
  input: Payloads;
  header: temporal.api.common.v1.IHeader | null | undefined;
  memo: Record<string, Payload>;
  searchAttributes: Record<string, Payload>;
  executionTimeoutMs: number;
  runTimeoutMs: number;
  workflowTaskTimeoutMs: number;
  identity: string;
  requestId: string;
  retryPolicy: temporal.api.common.v1.IRetryPolicy | null | undefined;
  firstTaskBackoffMs: number;
  firstRunId?: string;
  executionExpiration?: number;
  continued?: {
    runId: string;
    initiator: number;
    failure: object | null | undefined;
    lastCompletionResult: Payloads;
  };
  signal?: {
    signalName: string;
    input: Payloads;
    header: temporal.api.common.v1.IHeader | null | undefined;
    identity: string;
  };
}

const optionalDuration = (ms: number) => (ms > 0 ? msDuration(ms) : undefined);

/** Creates a run and writes WorkflowExecutionStarted (plus a signal for signal-with-start) and its first task. */
function createRun(engine: Engine, tx: Txn, p: NewRun): Run {
  const runTimeoutMs = p.runTimeoutMs || p.executionTimeoutMs;
  const executionExpiration =
    p.executionExpiration ?? (p.executionTimeoutMs > 0 ? tx.now + p.executionTimeoutMs : undefined);
  const run = new Run({
    namespace: p.namespace,
    workflowId: p.workflowId,
    runId: p.runId,
    firstRunId: p.firstRunId ?? p.runId,
    workflowType: p.workflowType,
    taskQueue: p.taskQueue,
    status: Status.RUNNING,
    startTime: tx.now,
    executionTime: tx.now + p.firstTaskBackoffMs,
    nextEventId: 1,
    lastCompletedWtStartedId: 0,
    workflowTaskTimeoutMs: p.workflowTaskTimeoutMs || DEFAULT_WORKFLOW_TASK_TIMEOUT_MS,
    runTimeoutMs,
    executionTimeoutMs: p.executionTimeoutMs,
    runExpiration: runTimeoutMs > 0 ? tx.now + runTimeoutMs : undefined,
    executionExpiration,
    activities: {},
    timers: {},
    buffered: [],
    cancelRequested: false,
    startRequestId: p.requestId,
    requestIds: [],
    historySizeBytes: 0,
  });
  run.memo = p.memo;
  run.searchAttributes = p.searchAttributes;
  run.tail = { from: 1, events: [] };
  engine.registerRun(run);
  tx.append(run, 'WorkflowExecutionStarted', {
    workflowId: p.workflowId,
    workflowType: { name: p.workflowType },
    taskQueue: { name: p.taskQueue, kind: 1 },
    input: p.input,
    workflowExecutionTimeout: optionalDuration(p.executionTimeoutMs),
    workflowRunTimeout: optionalDuration(runTimeoutMs),
    workflowTaskTimeout: msDuration(run.s.workflowTaskTimeoutMs),
    continuedExecutionRunId: p.continued?.runId,
    initiator: p.continued?.initiator,
    continuedFailure: p.continued?.failure,
    lastCompletionResult: p.continued?.lastCompletionResult,
    originalExecutionRunId: p.runId,
    identity: p.identity,
    firstExecutionRunId: run.s.firstRunId,
    retryPolicy: p.retryPolicy,
    attempt: 1,
    workflowExecutionExpirationTime: executionExpiration ? msTimestamp(executionExpiration) : undefined,
    firstWorkflowTaskBackoff: optionalDuration(p.firstTaskBackoffMs),
    memo: Object.keys(p.memo).length > 0 ? { fields: p.memo } : undefined,
    searchAttributes:
      Object.keys(p.searchAttributes).length > 0 ? { indexedFields: p.searchAttributes } : undefined,
    header: p.header,
  });
  if (p.signal) tx.append(run, 'WorkflowExecutionSignaled', p.signal);
  engine.scheduleWorkflowTask(tx, run, 1, tx.now + p.firstTaskBackoffMs);
  return run;
}

function terminate(
  engine: Engine,
  tx: Txn,
  run: Run,
  reason: string,
  identity: string,
  details?: Payloads,
): void {
  engine.closeRun(tx, run, Status.TERMINATED, 'WorkflowExecutionTerminated', { reason, details, identity });
}

function alreadyStarted(run: Run): RpcError {
  return new RpcError(
    status.ALREADY_EXISTS,
    `workflow execution already started: workflowId=${run.s.workflowId} runId=${run.s.runId}`,
    {
      typeName: 'temporal.api.errordetails.v1.WorkflowExecutionAlreadyStartedFailure',
      value: { startRequestId: run.s.startRequestId, runId: run.s.runId },
    },
  );
}

const CLOSED_UNSUCCESSFULLY = new Set<number>([
  Status.FAILED,
  Status.CANCELED,
  Status.TERMINATED,
  Status.TIMED_OUT,
]);

/**
 * Decides what a start does about an existing run with the same workflow id:
 * 'dedupe' (same request id), 'existing' (USE_EXISTING), 'terminate' (TERMINATE_EXISTING)
 * or 'new'; throws ALREADY_EXISTS when the policies forbid the start.
 */
function conflictDecision(
  existing: Run | undefined,
  req: StartRequest,
  defaultConflict: number,
): 'dedupe' | 'existing' | 'terminate' | 'new' {
  if (!existing) return 'new';
  if (req.requestId && existing.s.startRequestId === req.requestId) return 'dedupe';
  const reuse = req.workflowIdReusePolicy ?? 0;
  if (existing.running) {
    let conflict = req.workflowIdConflictPolicy || defaultConflict;
    if (reuse === 4 && !req.workflowIdConflictPolicy) conflict = 3; // TERMINATE_IF_RUNNING
    if (conflict === 2) return 'existing';
    if (conflict === 3) return 'terminate';
    throw alreadyStarted(existing);
  }
  if (reuse === 3) throw alreadyStarted(existing);
  if (reuse === 2 && !CLOSED_UNSUCCESSFULLY.has(existing.s.status)) throw alreadyStarted(existing);
  return 'new';
}

function validateStart(engine: Engine, namespace: string, req: StartRequest): void {
  if (!req.workflowId) throw invalid('workflowId is required');
  if (!req.workflowType?.name) throw invalid('workflowType.name is required');
  if (!req.taskQueue?.name) throw invalid('taskQueue.name is required');
  for (const [field, d] of [
    ['workflowExecutionTimeout', req.workflowExecutionTimeout],
    ['workflowRunTimeout', req.workflowRunTimeout],
    ['workflowTaskTimeout', req.workflowTaskTimeout],
  ] as const) {
    if (durationMs(d) < 0) throw invalid(`${field} must not be negative`);
  }
  engine.registry.validate(namespace, req.searchAttributes?.indexedFields);
}

function newRunFromRequest(namespace: string, req: StartRequest): NewRun {
  return {
    namespace,
    workflowId: req.workflowId!,
    runId: newId(),
    workflowType: req.workflowType!.name!,
    taskQueue: req.taskQueue!.name!,
    input: req.input,
    header: req.header,
    memo: mergeAttributes({}, req.memo?.fields),
    searchAttributes: mergeAttributes({}, req.searchAttributes?.indexedFields),
    executionTimeoutMs: durationMs(req.workflowExecutionTimeout),
    runTimeoutMs: durationMs(req.workflowRunTimeout),
    workflowTaskTimeoutMs: durationMs(req.workflowTaskTimeout),
    identity: req.identity ?? '',
    requestId: req.requestId || newId(),
    retryPolicy: req.retryPolicy,
    firstTaskBackoffMs: durationMs(req.workflowStartDelay),
  };
}

export function startWorkflow(engine: Engine, req: StartRequest): { runId: string; started: boolean } {
  const namespace = req.namespace || 'default';
  validateStart(engine, namespace, req);
  const existing = engine.currentRun(namespace, req.workflowId!);
  const decision = conflictDecision(existing, req, 1);
  if (decision === 'dedupe' || decision === 'existing')
    return { runId: existing!.s.runId, started: decision === 'dedupe' };
  const run = engine.exec((tx) => {
    if (decision === 'terminate')
      terminate(engine, tx, existing!, 'terminated by a new start (TERMINATE_EXISTING)', req.identity ?? '');
    return createRun(engine, tx, newRunFromRequest(namespace, req));
  });
  return { runId: run.s.runId, started: true };
}

export function signalWithStart(
  engine: Engine,
  req: temporal.api.workflowservice.v1.ISignalWithStartWorkflowExecutionRequest,
): { runId: string; started: boolean } {
  const namespace = req.namespace || 'default';
  if (!req.signalName) throw invalid('signalName is required');
  validateStart(engine, namespace, req);
  const signal = {
    signalName: req.signalName,
    input: req.signalInput,
    header: req.header,
    identity: req.identity ?? '',
  };
  const existing = engine.currentRun(namespace, req.workflowId!);
  if (existing?.running && req.workflowIdConflictPolicy !== 3) {
    engine.exec((tx) => engine.deliver(tx, existing, 'WorkflowExecutionSignaled', signal));
    return { runId: existing.s.runId, started: false };
  }
  const decision = existing?.running
    ? 'terminate'
    : conflictDecision(existing, { ...req, requestId: undefined }, 2);
  const run = engine.exec((tx) => {
    if (decision === 'terminate')
      terminate(engine, tx, existing!, 'terminated by a new start (TERMINATE_EXISTING)', req.identity ?? '');
    return createRun(engine, tx, { ...newRunFromRequest(namespace, req), signal });
  });
  return { runId: run.s.runId, started: true };
}

function openRun(
  engine: Engine,
  namespace: string,
  exec: temporal.api.common.v1.IWorkflowExecution | null | undefined,
): Run {
  const run = engine.findRun(namespace, exec);
  if (!run.running)
    throw notFound(
      `workflow execution already completed: workflowId=${run.s.workflowId} runId=${run.s.runId}`,
    );
  return run;
}

const seenRequest = (run: Run, requestId: string | null | undefined): boolean =>
  !!requestId && run.s.requestIds.includes(requestId);

function rememberRequest(run: Run, requestId: string | null | undefined): void {
  if (!requestId) return;
  run.s.requestIds.push(requestId);
  if (run.s.requestIds.length > REMEMBERED_REQUEST_IDS) run.s.requestIds.shift();
}

export function signalWorkflow(
  engine: Engine,
  req: temporal.api.workflowservice.v1.ISignalWorkflowExecutionRequest,
): object {
  if (!req.signalName) throw invalid('signalName is required');
  const run = openRun(engine, req.namespace || 'default', req.workflowExecution);
  if (seenRequest(run, req.requestId)) return {};
  engine.exec((tx) => {
    rememberRequest(run, req.requestId);
    engine.deliver(tx, run, 'WorkflowExecutionSignaled', {
      signalName: req.signalName,
      input: req.input,
      identity: req.identity ?? '',
      header: req.header,
    });
  });
  return {};
}

export function requestCancelWorkflow(
  engine: Engine,
  req: temporal.api.workflowservice.v1.IRequestCancelWorkflowExecutionRequest,
): object {
  const run = openRun(engine, req.namespace || 'default', req.workflowExecution);
  if (run.s.cancelRequested || seenRequest(run, req.requestId)) return {};
  engine.exec((tx) => {
    rememberRequest(run, req.requestId);
    run.s.cancelRequested = true;
    engine.deliver(tx, run, 'WorkflowExecutionCancelRequested', {
      cause: req.reason ?? '',
      identity: req.identity ?? '',
    });
  });
  return {};
}

export function terminateWorkflow(
  engine: Engine,
  req: temporal.api.workflowservice.v1.ITerminateWorkflowExecutionRequest,
): object {
  const run = openRun(engine, req.namespace || 'default', req.workflowExecution);
  engine.exec((tx) => terminate(engine, tx, run, req.reason ?? '', req.identity ?? '', req.details));
  return {};
}

export function continueAsNew(
  engine: Engine,
  tx: Txn,
  run: Run,
  a: temporal.api.command.v1.IContinueAsNewWorkflowExecutionCommandAttributes,
  completedId: number,
): void {
  const s = run.s;
  const newRunId = newId();
  const workflowType = a.workflowType?.name || s.workflowType;
  const taskQueue = a.taskQueue?.name || s.taskQueue;
  const memo = a.memo?.fields ? mergeAttributes({}, a.memo.fields) : run.memo;
  const searchAttributes = a.searchAttributes?.indexedFields
    ? mergeAttributes({}, a.searchAttributes.indexedFields)
    : run.searchAttributes;
  engine.closeRun(tx, run, Status.CONTINUED_AS_NEW, 'WorkflowExecutionContinuedAsNew', {
    newExecutionRunId: newRunId,
    workflowType: { name: workflowType },
    taskQueue: { name: taskQueue, kind: 1 },
    input: a.input,
    workflowRunTimeout: a.workflowRunTimeout,
    workflowTaskTimeout: a.workflowTaskTimeout,
    workflowTaskCompletedEventId: completedId,
    backoffStartInterval: a.backoffStartInterval,
    initiator: a.initiator || 1,
    failure: a.failure,
    lastCompletionResult: a.lastCompletionResult,
    header: a.header,
    memo: { fields: memo },
    searchAttributes: { indexedFields: searchAttributes },
  });
  s.newRunId = newRunId;
  createRun(engine, tx, {
    namespace: s.namespace,
    workflowId: s.workflowId,
    runId: newRunId,
    workflowType,
    taskQueue,
    input: a.input,
    header: a.header,
    memo,
    searchAttributes,
    executionTimeoutMs: s.executionTimeoutMs,
    runTimeoutMs: durationMs(a.workflowRunTimeout) || s.runTimeoutMs,
    workflowTaskTimeoutMs: durationMs(a.workflowTaskTimeout) || s.workflowTaskTimeoutMs,
    identity: '',
    requestId: newId(),
    retryPolicy: a.retryPolicy,
    firstTaskBackoffMs: durationMs(a.backoffStartInterval),
    firstRunId: s.firstRunId,
    executionExpiration: s.executionExpiration,
    continued: {
      runId: s.runId,
      initiator: a.initiator || 1,
      failure: a.failure,
      lastCompletionResult: a.lastCompletionResult,
    },
  });
}
