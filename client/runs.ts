import { WorkflowFailedError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import {
  RunControl,
  type CancelRequest,
  type DecisionOutcome,
  type RunEvent,
  type RunOutput,
  type RunState,
} from '../protocol/index.js';
import {
  cancelSignal,
  decisionOutcomeQuery,
  eventsQuery,
  pauseSignal,
  resumeSignal,
  stateQuery,
} from '../workflows/definitions.js';
import { queryRun } from './query-run.js';

/**
 * The run's whole state (transcript, approvals, events), running or closed. A run that completed
 * carries its final state in its result, so reading it needs no worker and no replay. `described`:
 * the run's description, when the caller has just read it (it is then not described again).
 *
 * @example
 * ```ts
 * import { getRunState } from 'countersign/client';
 *
 * const state = await getRunState(client, runId);
 * console.log(state.status, state.pending.map((approval) => approval.trackingId));
 * ```
 */
export async function getRunState(
  client: Client,
  runId: string,
  described?: Pick<WorkflowExecutionDescription, 'status'>,
): Promise<RunState> {
  const handle = client.workflow.getHandle(runId);
  const { status } = described ?? (await handle.describe());
  const final = status.name === 'COMPLETED' ? await getFinalState(client, runId) : undefined;
  return final ?? queryRun(handle, stateQuery);
}

/**
 * The run's events after `after`. `closed` says whether the caller already knows the run has ended
 * (from the list or a history watch); without it the run is described first.
 *
 * @example
 * ```ts
 * import { getRunEvents } from 'countersign/client';
 *
 * let after = 0; // event ids start at 1
 * for (const event of await getRunEvents(client, runId, after)) {
 *   console.log(event.id, event.type, event.actor ?? '');
 *   after = event.id;
 * }
 * ```
 */
export async function getRunEvents(
  client: Client,
  runId: string,
  after: number,
  closed?: boolean,
): Promise<RunEvent[]> {
  const handle = client.workflow.getHandle(runId);
  const ended = closed ?? (await handle.describe()).status.name !== 'RUNNING';
  const final = ended ? await getFinalState(client, runId) : undefined;
  return final ? final.events.filter((event) => event.id > after) : queryRun(handle, eventsQuery, after);
}

/**
 * The state a closed run returned; undefined when it did not complete (a failed workflow task,
 * termination) or completed before results carried their state, so only a query can tell. Call it
 * once the run has closed: it waits for the result.
 *
 * @example
 * ```ts
 * import { getFinalState } from 'countersign/client';
 *
 * const final = await getFinalState(client, runId);
 * if (final) console.log(final.status, final.output);
 * ```
 */
export async function getFinalState(client: Client, runId: string): Promise<RunState | undefined> {
  return (await getFinalOutput(client, runId))?.state;
}

/** A closed run's result, or undefined when it did not complete (see `getFinalState`). */
async function getFinalOutput(client: Client, runId: string): Promise<RunOutput | undefined> {
  try {
    return (await client.workflow.getHandle(runId).result()) as RunOutput;
  } catch (err) {
    if (err instanceof WorkflowFailedError) return undefined;
    throw err;
  }
}

/**
 * What the run did with the decision carrying `requestId`, or null if it has not taken one. A
 * completed run answers from its result, with no worker; a running one through a query.
 *
 * @example
 * ```ts
 * import { getDecisionOutcome } from 'countersign/client';
 *
 * // `sendDecision` answered null (no worker was up): ask again later, by the same request id.
 * const outcome = await getDecisionOutcome(client, runId, requestId);
 * if (outcome && !outcome.accepted) console.error(outcome.code, outcome.reason);
 * ```
 */
export async function getDecisionOutcome(
  client: Client,
  runId: string,
  requestId: string,
): Promise<DecisionOutcome | null> {
  const handle = client.workflow.getHandle(runId);
  const { status } = await handle.describe();
  const decisions =
    status.name === 'COMPLETED' ? (await getFinalOutput(client, runId))?.decisions : undefined;
  if (decisions) return decisions.find((outcome) => outcome.requestId === requestId) ?? null;
  return queryRun(handle, decisionOutcomeQuery, requestId);
}

/**
 * Cancels a run: its pending approvals settle as cancelled and it ends with status `cancelled`.
 * `by` names who cancels and through which channel: the run is told first (the `cancel` signal),
 * so its audit trail and its cancelled approvals record them; without it, nobody is recorded.
 *
 * @example
 * ```ts
 * await cancelRun(client, runId, { actor: 'lee', channel: 'api' });
 * ```
 */
export async function cancelRun(client: Client, runId: string, by?: CancelRequest): Promise<void> {
  const handle = client.workflow.getHandle(runId);
  if (by) await handle.signal(cancelSignal, by);
  await handle.cancel();
}

/**
 * Pauses a run at its next step boundary: before its next model call, and before any tool call that
 * has not started (a tool already running finishes). Its pending approvals stay decidable and their
 * deadlines keep running. A signal: durable while no worker runs; ignored by a paused or ended run.
 *
 * @example
 * ```ts
 * await pauseRun(client, runId, { actor: 'lee', channel: 'api', message: 'It is emailing every customer.' });
 * ```
 */
export async function pauseRun(client: Client, runId: string, request: RunControl): Promise<void> {
  await client.workflow.getHandle(runId).signal(pauseSignal, RunControl.parse(request));
}

/**
 * Resumes a paused run from where it stopped; `message` reaches the model as a user message before
 * its next step. Ignored by a run that is not paused.
 *
 * @example
 * ```ts
 * await resumeRun(client, runId, { actor: 'lee', channel: 'api', message: 'Email only the customers in the ticket.' });
 * ```
 */
export async function resumeRun(client: Client, runId: string, request: RunControl): Promise<void> {
  await client.workflow.getHandle(runId).signal(resumeSignal, RunControl.parse(request));
}
