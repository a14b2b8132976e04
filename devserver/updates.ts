import type { Engine } from './engine.js';
import { invalid, notFound } from './errors.js';
import { attributesOf } from './history.js';
import { EventType, decodeAs, encodeAs, type temporal } from './proto.js';
import { newId, type Run, type Txn } from './run.js';

type Request = temporal.api.update.v1.IRequest;
type Outcome = temporal.api.update.v1.IOutcome;
type Message = temporal.api.protocol.v1.IMessage;

/** Lifecycle stages as the API numbers them. */
export const Stage = { ADMITTED: 1, ACCEPTED: 2, COMPLETED: 3 } as const;

const REQUEST = 'temporal.api.update.v1.Request';
const ACCEPTANCE = 'temporal.api.update.v1.Acceptance';
const REJECTION = 'temporal.api.update.v1.Rejection';
const RESPONSE = 'temporal.api.update.v1.Response';
const typeUrl = (name: string) => `type.googleapis.com/${name}`;

/** How long an update call is held before it answers "admitted" and the client asks again. */
const HOLD_MS = 20_000;

/**
 * One update of a run. Admitted updates live in memory only, as on a Temporal server: one that
 * is lost to a restart before the workflow accepted it is retried by its caller. Once accepted,
 * its history events are the record, and a restarted devserver reads them back.
 */
export class UpdateEntry {
  stage: number = Stage.ADMITTED;
  readonly messageId = newId();
  acceptedEventId: number | undefined;
  outcome: Outcome | undefined;
  /** The run closed before the workflow accepted it. */
  abandoned = false;
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly id: string,
    readonly request: Request,
  ) {}

  /** Resolves once the update has reached `stage` (or ended), or after `holdMs`. */
  reached(stage: number, holdMs: number, onCancel: (cb: () => void) => void): Promise<void> {
    if (this.stage >= stage) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const check = () => {
        if (this.stage >= stage) done();
      };
      const timer = setTimeout(done, holdMs);
      this.waiters.add(check);
      onCancel(done);
    });
  }

  advance(stage: number, outcome?: Outcome): void {
    this.stage = stage;
    if (outcome) this.outcome = outcome;
    for (const w of [...this.waiters]) w();
  }

  abandon(): void {
    this.abandoned = true;
    this.advance(Stage.COMPLETED);
  }
}

/** The run's updates, read back from its history after a restart. */
function updatesOf(engine: Engine, run: Run): Map<string, UpdateEntry> {
  if (run.updates) return run.updates;
  const updates = new Map<string, UpdateEntry>();
  const byAcceptedEvent = new Map<number, UpdateEntry>();
  for (const event of engine.readHistory(run)) {
    if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED) {
      const a = attributesOf(event) as { protocolInstanceId: string; acceptedRequest: Request };
      const entry = new UpdateEntry(a.protocolInstanceId, a.acceptedRequest);
      entry.stage = Stage.ACCEPTED;
      entry.acceptedEventId = event.eventId;
      updates.set(entry.id, entry);
      byAcceptedEvent.set(event.eventId, entry);
    } else if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED) {
      const a = attributesOf(event) as { acceptedEventId: number; outcome: Outcome };
      byAcceptedEvent.get(Number(a.acceptedEventId))?.advance(Stage.COMPLETED, a.outcome);
    }
  }
  run.updates = updates;
  return updates;
}

function answerFor(run: Run, entry: UpdateEntry): object {
  return {
    updateRef: {
      workflowExecution: { workflowId: run.s.workflowId, runId: run.s.runId },
      updateId: entry.id,
    },
    stage: entry.stage,
    ...(entry.stage === Stage.COMPLETED ? { outcome: entry.outcome } : {}),
  };
}

const closedError = () => notFound('workflow execution already completed');

/**
 * UpdateWorkflowExecution: admits the update (or finds it by id), makes sure a workflow task
 * will deliver it, and answers once it reaches the stage the caller waits for.
 */
export async function updateWorkflow(
  engine: Engine,
  req: temporal.api.workflowservice.v1.IUpdateWorkflowExecutionRequest,
  onCancel: (cb: () => void) => void,
): Promise<object> {
  const run = engine.findRun(req.namespace || 'default', req.workflowExecution);
  const request = req.request;
  const updateId = request?.meta?.updateId;
  if (!request || !updateId) throw invalid('request.meta.updateId is required');
  if (!request.input?.name) throw invalid('request.input.name is required');
  const updates = updatesOf(engine, run);
  let entry = updates.get(updateId);
  if (!entry) {
    if (!run.running) throw closedError();
    entry = new UpdateEntry(updateId, request);
    updates.set(updateId, entry);
    engine.exec((tx) => engine.scheduleWorkflowTask(tx, run));
  }
  const wanted = Math.max(Stage.ACCEPTED, req.waitPolicy?.lifecycleStage ?? Stage.ACCEPTED);
  await entry.reached(wanted, HOLD_MS, onCancel);
  if (entry.abandoned) throw closedError();
  return answerFor(run, entry);
}

/** PollWorkflowExecutionUpdate: the outcome of an update this run has accepted. */
export async function pollUpdate(
  engine: Engine,
  req: temporal.api.workflowservice.v1.IPollWorkflowExecutionUpdateRequest,
  onCancel: (cb: () => void) => void,
): Promise<object> {
  const ref = req.updateRef;
  const run = engine.findRun(req.namespace || 'default', ref?.workflowExecution);
  const entry = updatesOf(engine, run).get(ref?.updateId ?? '');
  if (!entry) throw notFound(`update ${ref?.updateId ?? ''} not found`);
  const wanted = req.waitPolicy?.lifecycleStage ?? Stage.ACCEPTED;
  await entry.reached(wanted, HOLD_MS, onCancel);
  if (entry.abandoned) throw closedError();
  return answerFor(run, entry);
}

/** An update request as a workflow task carries it (int64 as number, as the devserver encodes). */
interface OutgoingMessage {
  id: string;
  protocolInstanceId: string;
  eventId: number;
  body: { type_url: string; value: Uint8Array };
}

/** The messages a workflow task carries: every update not yet accepted, in order of arrival. */
export function updateMessages(run: Run, startedEventId: number): OutgoingMessage[] {
  const messages: OutgoingMessage[] = [];
  // Admitted updates exist only in memory, so a run with none loaded has none to deliver.
  for (const entry of run.updates?.values() ?? []) {
    if (entry.stage !== Stage.ADMITTED) continue;
    messages.push({
      id: entry.messageId,
      protocolInstanceId: entry.id,
      // As Temporal's server does: after every event before the task started, so messages come
      // after the task's events.
      eventId: startedEventId - 1,
      body: { type_url: typeUrl(REQUEST), value: encodeAs(REQUEST, entry.request) },
    });
  }
  return messages;
}

/** True while an admitted update waits for a workflow task to deliver it. */
export function hasUndelivered(run: Run): boolean {
  for (const entry of run.updates?.values() ?? []) if (entry.stage === Stage.ADMITTED) return true;
  return false;
}

/** A message a completing worker sent, decoded, with the update it is about. */
export interface WorkerMessage {
  id: string;
  entry: UpdateEntry;
  kind: 'acceptance' | 'rejection' | 'response';
  body: Record<string, unknown>;
}

/** Decodes the worker's messages; throws an invalid-argument error naming the first bad one. */
export function readWorkerMessages(engine: Engine, run: Run, messages: Message[]): WorkerMessage[] {
  const updates = updatesOf(engine, run);
  return messages.map((m) => {
    const entry = updates.get(m.protocolInstanceId ?? '');
    if (!entry) throw invalid(`message ${m.id} is about unknown update ${m.protocolInstanceId}`);
    const url = m.body?.type_url ?? '';
    const value = m.body?.value ?? new Uint8Array();
    for (const [name, kind] of [
      [ACCEPTANCE, 'acceptance'],
      [REJECTION, 'rejection'],
      [RESPONSE, 'response'],
    ] as const) {
      if (url === typeUrl(name))
        return { id: m.id ?? '', entry, kind, body: decodeAs<Record<string, unknown>>(name, value) };
    }
    throw invalid(`message ${m.id} has an unsupported body ${url}`);
  });
}

/** Applies one worker message inside a completion: history events now, waiters after the commit. */
export function applyWorkerMessage(tx: Txn, run: Run, message: WorkerMessage, completedId: number): void {
  const { entry, body } = message;
  switch (message.kind) {
    case 'acceptance': {
      if (entry.stage >= Stage.ACCEPTED) return;
      const acceptedEventId = tx.append(run, 'WorkflowExecutionUpdateAccepted', {
        protocolInstanceId: entry.id,
        acceptedRequestMessageId: body.acceptedRequestMessageId ?? entry.messageId,
        acceptedRequestSequencingEventId: body.acceptedRequestSequencingEventId ?? completedId - 1,
        acceptedRequest: body.acceptedRequest ?? entry.request,
      });
      entry.acceptedEventId = acceptedEventId;
      entry.stage = Stage.ACCEPTED;
      tx.after(() => entry.advance(Stage.ACCEPTED));
      return;
    }
    case 'response': {
      if (entry.stage >= Stage.COMPLETED || entry.acceptedEventId === undefined) return;
      const outcome = body.outcome as Outcome;
      tx.append(run, 'WorkflowExecutionUpdateCompleted', {
        meta: body.meta ?? entry.request.meta,
        acceptedEventId: entry.acceptedEventId,
        outcome,
      });
      entry.stage = Stage.COMPLETED;
      tx.after(() => entry.advance(Stage.COMPLETED, outcome));
      return;
    }
    case 'rejection': {
      // A rejected update leaves no trace in history; its caller gets the failure.
      const outcome = { failure: body.failure as Outcome['failure'] };
      run.updates?.delete(entry.id);
      entry.stage = Stage.COMPLETED;
      tx.after(() => entry.advance(Stage.COMPLETED, outcome));
      return;
    }
  }
}

/** The run closed: updates it never accepted fail as not found; accepted ones get a failure. */
export function abandonUpdates(run: Run): void {
  for (const [id, entry] of run.updates ?? []) {
    if (entry.stage >= Stage.COMPLETED) continue;
    if (entry.stage < Stage.ACCEPTED) {
      run.updates!.delete(id);
      entry.abandon();
    } else {
      entry.advance(Stage.COMPLETED, {
        failure: {
          message: 'the workflow closed before it answered this update',
          applicationFailureInfo: {},
        },
      });
    }
  }
}
