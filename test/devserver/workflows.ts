/** Small workflows for the devserver conformance suite (deterministic code only). */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  executeChild,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import { defineSearchAttributeKey } from '@temporalio/common';

export const finishSignal = defineSignal<[string]>('finish');
export const stateQuery = defineQuery<string>('state');
export const failingQuery = defineQuery<string>('failing');

export const PendingKey = defineSearchAttributeKey('CountersignPending', 'INT');
export const AgentKey = defineSearchAttributeKey('CountersignAgent', 'KEYWORD');
export const StatusKey = defineSearchAttributeKey('CountersignStatus', 'KEYWORD');
export const ToolsKey = defineSearchAttributeKey('CountersignPendingTools', 'KEYWORD_LIST');

type Activity = (...args: unknown[]) => Promise<unknown>;
/** Activities are called by name from these workflows; their code lives in the harness. */
interface AnyActivities {
  greet: Activity;
  heartbeatUntilCancelled: Activity;
  localEcho: Activity;
  stamp: Activity;
  [name: string]: Activity;
}

/** Activity, timer, signal, query, search-attribute and memo upserts in one run. */
export async function tour(name: string): Promise<string> {
  const { greet } = proxyActivities<AnyActivities>({ startToCloseTimeout: '10s' });
  let got = '';
  let state = 'started';
  setHandler(finishSignal, (v) => void (got = v));
  setHandler(stateQuery, () => state);
  const greeting = (await greet(name)) as string;
  state = 'greeted';
  await sleep(50);
  state = 'slept';
  upsertSearchAttributes([
    { key: PendingKey, value: 1 },
    { key: AgentKey, value: 'tour-agent' },
    { key: ToolsKey, value: ['send_email', 'transfer'] },
  ]);
  upsertMemo({ pending: { count: 1 } });
  state = 'waiting';
  await condition(() => got !== '');
  upsertSearchAttributes([{ key: PendingKey, value: 0 }]);
  upsertMemo({ pending: null });
  state = 'done';
  return `${greeting}/${got}`;
}

/** Waits for `finish`; answers `state` (and `failing`, which throws). */
export async function waitForFinish(): Promise<string> {
  let got: string | undefined;
  setHandler(finishSignal, (v) => void (got = v));
  setHandler(stateQuery, () => (got === undefined ? 'waiting' : `finished:${got}`));
  setHandler(failingQuery, () => {
    throw new Error('query handler refused');
  });
  await condition(() => got !== undefined);
  return got!;
}

/** Upserts the given Countersign attributes, then waits for `finish`. */
export async function tagged(pending: number, agent: string, status: string, tools: string[]): Promise<void> {
  upsertSearchAttributes([
    { key: PendingKey, value: pending },
    { key: AgentKey, value: agent },
    { key: StatusKey, value: status },
    { key: ToolsKey, value: tools },
  ]);
  let done = false;
  setHandler(finishSignal, () => void (done = true));
  await condition(() => done);
}

export interface ActivityOutcome {
  ok: boolean;
  result?: unknown;
  failureType?: string;
  causeType?: string;
  causeMessage?: string;
  retryState?: string;
}

/** Runs one activity with the given options and reports how it ended. */
export async function callActivity(
  name: string,
  args: unknown[],
  options: ActivityOptions,
): Promise<ActivityOutcome> {
  const acts = proxyActivities<AnyActivities>(options);
  try {
    const fn = acts[name];
    if (!fn) throw ApplicationFailure.nonRetryable(`no activity ${name}`);
    return { ok: true, result: await fn(...args) };
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    const cause = err.cause as Error & { type?: string };
    return {
      ok: false,
      failureType: err.name,
      causeType: cause?.name === 'ApplicationFailure' ? cause.type : cause?.name,
      causeMessage: cause?.message,
      retryState: String(err.retryState),
    };
  }
}

/** Starts a heartbeating activity, cancels it on `finish`, and reports the outcome. */
export async function cancelActivityOnSignal(
  cancellationType: 'TRY_CANCEL' | 'WAIT_CANCELLATION_COMPLETED',
): Promise<string> {
  const { heartbeatUntilCancelled } = proxyActivities<AnyActivities>({
    startToCloseTimeout: '30s',
    heartbeatTimeout: '1s',
    cancellationType: cancellationType as never,
  });
  let cancel = false;
  setHandler(finishSignal, () => void (cancel = true));
  try {
    await CancellationScope.cancellable(async () => {
      const p = heartbeatUntilCancelled();
      await condition(() => cancel);
      CancellationScope.current().cancel();
      await p;
    });
    return 'completed';
  } catch (err) {
    return isCancellation(err) ? 'cancelled' : `error:${(err as Error).message}`;
  }
}

/** A timer cancelled before it fires, a local activity (a marker) and a patch (a marker). */
export async function markersAndCancelledTimer(): Promise<string> {
  const { localEcho } = proxyLocalActivities<AnyActivities>({ startToCloseTimeout: '10s' });
  await CancellationScope.cancellable(async () => {
    const timer = sleep(60_000);
    await sleep(10); // let the StartTimer command reach the server before cancelling
    CancellationScope.current().cancel();
    await timer.catch(() => undefined);
  });
  const v = (await localEcho('local')) as string;
  return patched('devserver-patch') ? `${v}:patched` : v;
}

export async function failsWith(message: string): Promise<void> {
  throw ApplicationFailure.nonRetryable(message, 'DevserverTestFailure');
}

/** Waits until cancelled, then returns cleanup evidence through a rethrown cancellation. */
export async function waitsForCancel(): Promise<void> {
  await condition(() => false);
}

export async function sleeper(ms: number): Promise<string> {
  await sleep(ms);
  return 'woke';
}

export async function countdown(n: number): Promise<string> {
  if (n > 0) await continueAsNew<typeof countdown>(n - 1);
  return `done after ${workflowInfo().continuedFromExecutionRunId ? 'continuing' : 'first run'}`;
}

/** Fails its workflow task (a plain Error is a task failure, not a workflow failure). */
export async function brokenTask(): Promise<void> {
  throw new Error('workflow task failure on purpose');
}

export async function startsChild(): Promise<string> {
  return await executeChild(sleeper, { args: [1] });
}

/** Waits for `finish`, then runs the `stamp` activity (signal-to-activity latency benchmark). */
export async function activityOnSignal(): Promise<void> {
  const { stamp } = proxyActivities<AnyActivities>({ startToCloseTimeout: '10s' });
  let go = false;
  setHandler(finishSignal, () => void (go = true));
  await condition(() => go);
  await stamp(workflowInfo().workflowId);
}

export const addUpdate = defineUpdate<number, [number]>('add');
export const addSlowlyUpdate = defineUpdate<number, [number]>('addSlowly');
export const totalQuery = defineQuery<number>('total');

/**
 * Updates: `add` answers in the task that delivers it (its validator refuses amounts below 1);
 * `addSlowly` runs an activity before it answers. Ends on the finish signal.
 */
export async function counter(): Promise<number> {
  const { greet } = proxyActivities<AnyActivities>({ startToCloseTimeout: '10s' });
  let total = 0;
  let finished = false;
  setHandler(
    addUpdate,
    (n) => {
      total += n;
      return total;
    },
    {
      validator: (n) => {
        if (n < 1) throw new Error(`${n} is below 1`);
      },
    },
  );
  setHandler(addSlowlyUpdate, async (n) => {
    await greet('slowly');
    total += n;
    return total;
  });
  setHandler(totalQuery, () => total);
  setHandler(finishSignal, () => void (finished = true));
  await condition(() => finished);
  return total;
}
