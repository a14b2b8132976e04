import {
  activityCommandProblem,
  requestCancelActivity,
  scheduleActivity,
  startActivityTask,
} from './activities.js';
import type { Engine, PollResponse, WorkflowTaskRef } from './engine.js';
import { invalid, notFound } from './errors.js';
import { EV, attributesOf, decodeEvent } from './history.js';
import { continueAsNew } from './lifecycle.js';
import {
  CommandType as C,
  CommandTypeName,
  RetryState,
  Status,
  TimeoutType,
  type temporal,
} from './proto.js';
import { takeQuery } from './queries.js';
import {
  applyWorkerMessage,
  hasUndelivered,
  readWorkerMessages,
  updateMessages,
  type WorkerMessage,
} from './updates.js';
import { newId, unb64, type Run, type Txn } from './run.js';
import { mergeAttributes } from './search-attributes.js';
import { durationMs, msTimestamp } from './time.js';
import { decodeToken, encodeToken } from './tokens.js';

type Command = temporal.api.command.v1.ICommand;
type CompleteRequest = temporal.api.workflowservice.v1.IRespondWorkflowTaskCompletedRequest;

const Cause = {
  UNHANDLED_COMMAND: 1,
  BAD_SCHEDULE_ACTIVITY_ATTRIBUTES: 2,
  BAD_REQUEST_CANCEL_ACTIVITY_ATTRIBUTES: 3,
  BAD_START_TIMER_ATTRIBUTES: 4,
  BAD_CANCEL_TIMER_ATTRIBUTES: 5,
  START_TIMER_DUPLICATE_ID: 12,
  SCHEDULE_ACTIVITY_DUPLICATE_ID: 22,
  BAD_SEARCH_ATTRIBUTES: 23,
  FEATURE_DISABLED: 35,
  BAD_UPDATE_MESSAGE: 30,
} as const;

/** TaskQueueKind STICKY: a worker's own queue for the runs it has cached. */
const STICKY_KIND = 2;

const TERMINAL = new Set([
  C.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION,
  C.COMMAND_TYPE_FAIL_WORKFLOW_EXECUTION,
  C.COMMAND_TYPE_CANCEL_WORKFLOW_EXECUTION,
  C.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION,
]);

const SUPPORTED = new Set([
  ...TERMINAL,
  C.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK,
  C.COMMAND_TYPE_REQUEST_CANCEL_ACTIVITY_TASK,
  C.COMMAND_TYPE_START_TIMER,
  C.COMMAND_TYPE_CANCEL_TIMER,
  C.COMMAND_TYPE_RECORD_MARKER,
  C.COMMAND_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
  C.COMMAND_TYPE_MODIFY_WORKFLOW_PROPERTIES,
  C.COMMAND_TYPE_PROTOCOL_MESSAGE,
]);

/** Retries of a failing task back off from the third attempt, so a broken workflow does not spin. */
function retryBackoff(attempt: number): number {
  return attempt <= 2 ? 0 : Math.min(1000 * 2 ** (attempt - 3), 60_000);
}

// ---- dispatch --------------------------------------------------------------------------

function takeWorkflowTask(engine: Engine, ref: WorkflowTaskRef, identity: string): PollResponse | null {
  if (ref.kind === 'query') return takeQuery(engine, ref.query, ref.offer, identity);
  const { run } = ref;
  const wt = run.s.wt;
  if (!run.running || !wt || wt.scheduledEventId !== ref.scheduledEventId || wt.startedEventId) return null;
  // A task offered on a sticky queue that has since been abandoned belongs to the normal queue now.
  if (ref.sticky && !run.sticky) return null;
  engine.exec((tx) => {
    wt.startedEventId = tx.append(run, 'WorkflowTaskStarted', {
      scheduledEventId: wt.scheduledEventId,
      identity,
      requestId: newId(),
      historySizeBytes: run.s.historySizeBytes,
    });
    wt.startedTime = tx.now;
    wt.identity = identity;
  });
  // The sticky worker has the run cached and only needs what happened since its last task.
  const events = engine.eventsFrom(run, ref.sticky ? run.s.lastCompletedWtStartedId + 1 : 1);
  const queries: Record<string, object> = {};
  for (const q of run.attachedQueries.values()) if (!q.done) queries[q.id] = q.query;
  const messages = updateMessages(run, wt.startedEventId!);
  return {
    taskToken: encodeToken({ k: 'w', r: run.s.runId, s: wt.scheduledEventId, a: wt.attempt }),
    workflowExecution: { workflowId: run.s.workflowId, runId: run.s.runId },
    workflowType: { name: run.s.workflowType },
    previousStartedEventId: run.s.lastCompletedWtStartedId,
    startedEventId: wt.startedEventId,
    attempt: wt.attempt,
    history: { events },
    workflowExecutionTaskQueue: { name: run.s.taskQueue, kind: 1 },
    scheduledTime: msTimestamp(wt.scheduledTime),
    startedTime: msTimestamp(wt.startedTime!),
    queries,
    ...(messages.length > 0 ? { messages } : {}),
  };
}

export function pollWorkflowTaskQueue(
  engine: Engine,
  req: temporal.api.workflowservice.v1.IPollWorkflowTaskQueueRequest,
  onCancel: (cb: () => void) => void,
): Promise<PollResponse> {
  const namespace = req.namespace || 'default';
  const queue = req.taskQueue?.name ?? '';
  const sticky = req.taskQueue?.kind === STICKY_KIND;
  const identity = req.identity ?? '';
  // grpc-js also reports a call as cancelled after it has been answered; only a poll cancelled
  // while it still waited says anything about its worker.
  let answered = false;
  const polled = engine.workflowQueues.longPoll(
    req,
    (ref, taker) => takeWorkflowTask(engine, ref, taker),
    (cb) =>
      onCancel(() => {
        if (answered) return;
        cb();
        // Once the cancelled poll is counted out, see whether its worker is gone.
        setImmediate(() => afterCancelledPoll(engine, { namespace, queue, sticky, identity }));
      }),
  );
  const settle = () => void (answered = true);
  polled.then(settle, settle);
  return polled;
}

/**
 * A worker cancels its polls only when it goes away (a killed process drops its connection).
 * When nothing of it waits any more: its cached runs' tasks go to the normal queue at once, rather
 * than waiting out the sticky schedule-to-start timeout, and the queries it took and never
 * answered go out again, rather than waiting out the query timeout.
 */
function afterCancelledPoll(
  engine: Engine,
  poll: { namespace: string; queue: string; sticky: boolean; identity: string },
): void {
  if (poll.sticky && engine.workflowQueues.get(poll.namespace, poll.queue).waiting === 0)
    engine.dropStickyQueue(poll.namespace, poll.queue);
  if (engine.workflowQueues.waitingFor(poll.identity) === 0) engine.resendQueriesTakenBy(poll.identity);
}

function locateTask(engine: Engine, token: Uint8Array | null | undefined): Run {
  const t = decodeToken(token, 'w');
  if (t.k !== 'w') throw invalid('not a workflow task token');
  const run = engine.runs.get(t.r);
  const wt = run?.s.wt;
  if (
    !run ||
    !run.running ||
    !wt ||
    wt.scheduledEventId !== t.s ||
    !wt.startedEventId ||
    wt.attempt !== t.a
  ) {
    throw notFound('workflow task not found: it timed out, failed, or its workflow closed');
  }
  return run;
}

// ---- ending a task without completing it -------------------------------------------------

function endTask(
  engine: Engine,
  tx: Txn,
  run: Run,
  name: 'WorkflowTaskFailed' | 'WorkflowTaskTimedOut',
  attrs: object,
  nextAttempt: number,
): void {
  const wt = run.s.wt!;
  // The worker may have dropped the run from its cache; the retry goes to the normal queue.
  run.sticky = undefined;
  tx.append(run, name, {
    scheduledEventId: wt.scheduledEventId,
    startedEventId: wt.startedEventId,
    ...attrs,
  });
  run.s.wt = undefined;
  engine.flushBuffered(tx, run);
  engine.scheduleWorkflowTask(tx, run, nextAttempt, tx.now + retryBackoff(nextAttempt));
  tx.after(() => engine.rerouteQueries(run));
}

export function workflowTaskTimedOut(engine: Engine, tx: Txn, run: Run): void {
  endTask(
    engine,
    tx,
    run,
    'WorkflowTaskTimedOut',
    { timeoutType: TimeoutType.START_TO_CLOSE },
    run.s.wt!.attempt + 1,
  );
}

export function respondWorkflowTaskFailed(
  engine: Engine,
  req: temporal.api.workflowservice.v1.IRespondWorkflowTaskFailedRequest,
): object {
  const run = locateTask(engine, req.taskToken);
  engine.exec((tx) =>
    endTask(
      engine,
      tx,
      run,
      'WorkflowTaskFailed',
      {
        cause: req.cause ?? 0,
        failure: req.failure,
        identity: req.identity ?? '',
        binaryChecksum: req.binaryChecksum ?? '',
      },
      run.s.wt!.attempt + 1,
    ),
  );
  return {};
}

// ---- completion ------------------------------------------------------------------------

interface Problem {
  cause: number;
  message: string;
}

function bufferedTimerFired(run: Run, timerId: string): number {
  return run.s.buffered.findIndex((b) => {
    const e = decodeEvent(unb64(b.event));
    return e.eventType === EV.TimerFired && attributesOf(e).timerId === timerId;
  });
}

/** Checks every command before any is applied, so a bad task changes nothing but its own failure. */
function findProblem(
  engine: Engine,
  run: Run,
  req: CompleteRequest,
  messages: Map<string, WorkerMessage>,
): Problem | null {
  const activityIds = new Set(Object.values(run.s.activities).map((a) => a.activityId));
  const timers = new Set(Object.keys(run.s.timers));
  for (const cmd of req.commands ?? []) {
    const type = cmd.commandType ?? 0;
    if (!SUPPORTED.has(type)) {
      return {
        cause: Cause.FEATURE_DISABLED,
        message: `devserver does not support command ${CommandTypeName[type] ?? type} (child workflows, external signals and cancels, and Nexus are not implemented)`,
      };
    }
    if (type === C.COMMAND_TYPE_PROTOCOL_MESSAGE) {
      const id = cmd.protocolMessageCommandAttributes?.messageId ?? '';
      if (!messages.has(id))
        return {
          cause: Cause.BAD_UPDATE_MESSAGE,
          message: `ProtocolMessage: no message ${id} in this completion`,
        };
    }
    if (type === C.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK) {
      const attrs = cmd.scheduleActivityTaskCommandAttributes ?? {};
      const msg = activityCommandProblem(attrs, activityIds);
      if (msg) {
        const dup = attrs.activityId && activityIds.has(attrs.activityId);
        return {
          cause: dup ? Cause.SCHEDULE_ACTIVITY_DUPLICATE_ID : Cause.BAD_SCHEDULE_ACTIVITY_ATTRIBUTES,
          message: msg,
        };
      }
      activityIds.add(attrs.activityId!);
    } else if (type === C.COMMAND_TYPE_REQUEST_CANCEL_ACTIVITY_TASK) {
      if (!cmd.requestCancelActivityTaskCommandAttributes?.scheduledEventId) {
        return {
          cause: Cause.BAD_REQUEST_CANCEL_ACTIVITY_ATTRIBUTES,
          message: 'RequestCancelActivityTask: scheduledEventId is not set',
        };
      }
    } else if (type === C.COMMAND_TYPE_START_TIMER) {
      const id = cmd.startTimerCommandAttributes?.timerId;
      if (!id) return { cause: Cause.BAD_START_TIMER_ATTRIBUTES, message: 'StartTimer: timerId is not set' };
      if (timers.has(id))
        return {
          cause: Cause.START_TIMER_DUPLICATE_ID,
          message: `StartTimer: timerId ${id} is already in use`,
        };
      timers.add(id);
    } else if (type === C.COMMAND_TYPE_CANCEL_TIMER) {
      const id = cmd.cancelTimerCommandAttributes?.timerId ?? '';
      if (!timers.has(id) && bufferedTimerFired(run, id) < 0) {
        return {
          cause: Cause.BAD_CANCEL_TIMER_ATTRIBUTES,
          message: `CancelTimer: timer ${id} is not pending`,
        };
      }
      timers.delete(id);
    } else if (type === C.COMMAND_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES) {
      try {
        engine.registry.validate(
          run.s.namespace,
          cmd.upsertWorkflowSearchAttributesCommandAttributes?.searchAttributes?.indexedFields,
        );
      } catch (err) {
        return { cause: Cause.BAD_SEARCH_ATTRIBUTES, message: (err as Error).message };
      }
    }
  }
  return null;
}

/**
 * Applies one command; returns true when the workflow must see a new task for its effects.
 * Activities the worker asked to run eagerly are collected in `eager`.
 */
function applyCommand(
  engine: Engine,
  tx: Txn,
  run: Run,
  cmd: Command,
  completedId: number,
  eager: number[],
): boolean {
  const s = run.s;
  switch (cmd.commandType) {
    case C.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK: {
      const attrs = cmd.scheduleActivityTaskCommandAttributes!;
      const id = scheduleActivity(tx, run, attrs, completedId);
      // Eager dispatch, as Temporal's server does it: only for the workflow's own task queue,
      // which the completing worker is known to poll.
      if (attrs.requestEagerExecution && attrs.taskQueue?.name === s.taskQueue) eager.push(id);
      return false;
    }
    case C.COMMAND_TYPE_REQUEST_CANCEL_ACTIVITY_TASK:
      return requestCancelActivity(
        tx,
        run,
        Number(cmd.requestCancelActivityTaskCommandAttributes!.scheduledEventId),
        completedId,
      );
    case C.COMMAND_TYPE_START_TIMER: {
      const a = cmd.startTimerCommandAttributes!;
      const timerId = a.timerId!;
      const startedEventId = tx.append(run, 'TimerStarted', {
        timerId,
        startToFireTimeout: a.startToFireTimeout,
        workflowTaskCompletedEventId: completedId,
      });
      s.timers[timerId] = { timerId, startedEventId, fireTime: tx.now + durationMs(a.startToFireTimeout) };
      return false;
    }
    case C.COMMAND_TYPE_CANCEL_TIMER: {
      const timerId = cmd.cancelTimerCommandAttributes!.timerId!;
      let startedEventId = s.timers[timerId]?.startedEventId;
      if (startedEventId !== undefined) {
        delete s.timers[timerId];
      } else {
        // The timer fired while this task ran: the cancel wins and the firing is dropped.
        const i = bufferedTimerFired(run, timerId);
        startedEventId = Number(attributesOf(decodeEvent(unb64(s.buffered[i]!.event))).startedEventId);
        s.buffered.splice(i, 1);
      }
      tx.append(run, 'TimerCanceled', {
        timerId,
        startedEventId,
        workflowTaskCompletedEventId: completedId,
        identity: '',
      });
      return false;
    }
    case C.COMMAND_TYPE_RECORD_MARKER: {
      const a = cmd.recordMarkerCommandAttributes!;
      tx.append(run, 'MarkerRecorded', {
        markerName: a.markerName,
        details: a.details,
        workflowTaskCompletedEventId: completedId,
        header: a.header,
        failure: a.failure,
      });
      return false;
    }
    case C.COMMAND_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: {
      const fields =
        cmd.upsertWorkflowSearchAttributesCommandAttributes?.searchAttributes?.indexedFields ?? {};
      tx.append(run, 'UpsertWorkflowSearchAttributes', {
        workflowTaskCompletedEventId: completedId,
        searchAttributes: { indexedFields: fields },
      });
      run.searchAttributes = mergeAttributes(run.searchAttributes, fields);
      return false;
    }
    case C.COMMAND_TYPE_MODIFY_WORKFLOW_PROPERTIES: {
      const fields = cmd.modifyWorkflowPropertiesCommandAttributes?.upsertedMemo?.fields ?? {};
      tx.append(run, 'WorkflowPropertiesModified', {
        workflowTaskCompletedEventId: completedId,
        upsertedMemo: { fields },
      });
      run.memo = mergeAttributes(run.memo, fields);
      return false;
    }
    case C.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION:
      engine.closeRun(tx, run, Status.COMPLETED, 'WorkflowExecutionCompleted', {
        result: cmd.completeWorkflowExecutionCommandAttributes?.result,
        workflowTaskCompletedEventId: completedId,
      });
      return false;
    case C.COMMAND_TYPE_FAIL_WORKFLOW_EXECUTION:
      engine.closeRun(tx, run, Status.FAILED, 'WorkflowExecutionFailed', {
        failure: cmd.failWorkflowExecutionCommandAttributes?.failure,
        retryState: RetryState.RETRY_POLICY_NOT_SET,
        workflowTaskCompletedEventId: completedId,
      });
      return false;
    case C.COMMAND_TYPE_CANCEL_WORKFLOW_EXECUTION:
      engine.closeRun(tx, run, Status.CANCELED, 'WorkflowExecutionCanceled', {
        details: cmd.cancelWorkflowExecutionCommandAttributes?.details,
        workflowTaskCompletedEventId: completedId,
      });
      return false;
    case C.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION:
      continueAsNew(engine, tx, run, cmd.continueAsNewWorkflowExecutionCommandAttributes ?? {}, completedId);
      return false;
    default:
      throw new Error(`unexpected command ${cmd.commandType}`);
  }
}

export function respondWorkflowTaskCompleted(engine: Engine, req: CompleteRequest): object {
  const run = locateTask(engine, req.taskToken);
  const wt = run.s.wt!;
  const identity = req.identity ?? '';
  for (const [id, result] of Object.entries(req.queryResults ?? {})) {
    engine.queries.get(id)?.answer(result.resultType ?? 0, result.answer, result.errorMessage);
  }
  let messages: Map<string, WorkerMessage>;
  let problem: Problem | null;
  try {
    messages = new Map(readWorkerMessages(engine, run, req.messages ?? []).map((m) => [m.id, m]));
    problem = findProblem(engine, run, req, messages);
  } catch (err) {
    messages = new Map();
    problem = { cause: Cause.BAD_UPDATE_MESSAGE, message: (err as Error).message };
  }
  if (problem) {
    engine.exec((tx) =>
      endTask(
        engine,
        tx,
        run,
        'WorkflowTaskFailed',
        { cause: problem.cause, failure: { message: problem.message }, identity },
        wt.attempt + 1,
      ),
    );
    throw invalid(problem.message);
  }
  const commands = req.commands ?? [];
  if (run.s.buffered.length > 0 && commands.some((c) => TERMINAL.has(c.commandType ?? 0))) {
    // New events arrived while the task ran: the workflow must see them before it may close.
    engine.exec((tx) =>
      endTask(engine, tx, run, 'WorkflowTaskFailed', { cause: Cause.UNHANDLED_COMMAND, identity }, 1),
    );
    return {};
  }
  return engine.exec((tx) => {
    const completedId = tx.append(run, 'WorkflowTaskCompleted', {
      scheduledEventId: wt.scheduledEventId,
      startedEventId: wt.startedEventId,
      identity,
      binaryChecksum: req.binaryChecksum ?? '',
      sdkMetadata: req.sdkMetadata,
      meteringMetadata: req.meteringMetadata,
      workerVersion: req.workerVersionStamp,
    });
    run.s.lastCompletedWtStartedId = wt.startedEventId!;
    const sticky = req.stickyAttributes?.workerTaskQueue?.name;
    run.sticky = sticky
      ? { queue: sticky, scheduleToStartMs: durationMs(req.stickyAttributes?.scheduleToStartTimeout) || 5000 }
      : undefined;
    run.s.wt = undefined;
    let needTask = req.forceCreateNewWorkflowTask === true;
    const eager: number[] = [];
    for (const cmd of commands) {
      if (cmd.commandType === C.COMMAND_TYPE_PROTOCOL_MESSAGE) {
        // Update messages take their place in history where the workflow ordered them.
        const id = cmd.protocolMessageCommandAttributes!.messageId!;
        applyWorkerMessage(tx, run, messages.get(id)!, completedId);
        messages.delete(id);
      } else if (applyCommand(engine, tx, run, cmd, completedId, eager)) {
        needTask = true;
      }
      if (!run.running) break;
    }
    if (run.running)
      for (const message of messages.values()) applyWorkerMessage(tx, run, message, completedId);
    if (run.running && (engine.flushBuffered(tx, run) || needTask || hasUndelivered(run)))
      engine.scheduleWorkflowTask(tx, run);
    tx.after(() => engine.rerouteQueries(run));
    // Eagerly dispatched activities start now and go back in this response, not through matching.
    const activityTasks = [];
    for (const id of run.running ? eager : []) {
      const a = run.s.activities[id];
      if (a && !a.started) activityTasks.push(startActivityTask(tx, run, a, identity));
    }
    return activityTasks.length > 0 ? { activityTasks } : {};
  });
}
