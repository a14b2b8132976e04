import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  sleep,
  TimeoutFailure,
} from '@temporalio/workflow';
import type { JsonValue, ToolSpec, UnknownAttempt } from '../protocol/index.js';
import { OUTCOME_UNKNOWN_FAILURE, type CountersignActivities, type ToolRunInput } from './activity-types.js';
import { runTool, TOOL_ATTEMPT, toolRetry } from './activities.js';
import { awaitHumanDecision } from './approval-gate.js';
import { describeCall, failureMessage } from './describe.js';
import { policyOf } from './evaluate-policy.js';
import { callDeciders } from './call-deciders.js';
import type { RunContext } from './run-context.js';
import { isPatched, UNKNOWN_OUTCOMES_PATCH } from './patches.js';

const DEFAULT_ATTEMPTS = 3;

/** One attempt at a time: the workflow, not the server, decides whether there is another. */
const { runTool: attemptOnce } = proxyActivities<CountersignActivities>({
  ...TOOL_ATTEMPT,
  retry: { maximumAttempts: 1 },
});

/** How a call ended: its result (from the tool, or from a person who knows it happened), or why not. */
export type CallOutcome =
  | { ok: true; result: JsonValue; reportedBy?: string[] }
  | { ok: false; error: string };

/** Whether another attempt of the tool's calls is safe without asking anyone. */
const isIdempotent = (tool: ToolSpec) => tool.idempotent ?? tool.safe;

/**
 * Runs the call's tool. A tool that dedupes is retried by Temporal, whatever ended an attempt. One
 * that does not is retried only after a known failure (it threw); an attempt that ended without
 * saying how is an unknown outcome, and a person answers: it happened (with the result), run it
 * again (one more attempt, same idempotency key), or it failed. Silence until the deadline is
 * "failed", never a retry.
 */
export async function attemptTool(
  ctx: RunContext,
  tool: ToolSpec,
  input: ToolRunInput,
): Promise<CallOutcome> {
  const maxAttempts = tool.maxAttempts ?? DEFAULT_ATTEMPTS;
  if (isIdempotent(tool) || !isPatched(UNKNOWN_OUTCOMES_PATCH)) {
    try {
      return { ok: true, result: await retried(maxAttempts).runTool(input) };
    } catch (err) {
      if (isCancellation(err)) throw err;
      return { ok: false, error: failureMessage(err) };
    }
  }
  let failures = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return { ok: true, result: await attemptOnce(input) };
    } catch (err) {
      if (isCancellation(err)) throw err;
      const unknown = unknownAttempt(err, attempt);
      if (!unknown) {
        failures++;
        if (failures >= maxAttempts || nonRetryable(err)) return { ok: false, error: failureMessage(err) };
        // toolRetry's backoff, which Temporal applies to a tool that dedupes.
        await sleep(Math.min(1_000 * 2 ** (failures - 1), 30_000));
        continue;
      }
      const answer = await askWhatHappened(ctx, tool, input, unknown);
      if (answer === 'again') continue;
      return answer;
    }
  }
}

function nonRetryable(err: unknown): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  return cause instanceof ApplicationFailure && cause.nonRetryable === true;
}

/** Temporal's own retries for a tool that dedupes; the default three attempts use the shared proxy. */
function retried(maxAttempts: number): Pick<CountersignActivities, 'runTool'> {
  if (maxAttempts === DEFAULT_ATTEMPTS) return { runTool };
  return proxyActivities<CountersignActivities>({ ...TOOL_ATTEMPT, retry: toolRetry(maxAttempts) });
}

/** What is known of an attempt that ended without the tool saying how; undefined for a known failure. */
function unknownAttempt(err: unknown, attempt: number): UnknownAttempt | undefined {
  if (!(err instanceof ActivityFailure)) return undefined;
  const cause = err.cause;
  if (cause instanceof ApplicationFailure && cause.type !== OUTCOME_UNKNOWN_FAILURE) return undefined;
  const details =
    cause instanceof TimeoutFailure
      ? cause.lastHeartbeatDetails
      : cause instanceof ApplicationFailure
        ? cause.details?.[0]
        : undefined;
  const known = (typeof details === 'object' && details !== null ? details : {}) as Partial<UnknownAttempt>;
  return {
    attempt,
    ...(typeof known.startedAt === 'string' ? { startedAt: known.startedAt } : {}),
    ...(typeof known.worker === 'string' ? { worker: known.worker } : {}),
    ...(known.progress && typeof known.progress.step === 'string' ? { progress: known.progress } : {}),
    reason: reasonOf(cause),
  };
}

function reasonOf(cause: Error | undefined): string {
  if (cause instanceof TimeoutFailure) {
    return cause.timeoutType === 'HEARTBEAT'
      ? 'its worker stopped reporting (it died or lost the server) while the tool ran'
      : 'it ran out of time before the tool said how it ended';
  }
  return cause?.message
    ? `the tool could not tell: ${cause.message}`
    : 'it ended without the tool saying how';
}

async function askWhatHappened(
  ctx: RunContext,
  tool: ToolSpec,
  input: ToolRunInput,
  attempt: UnknownAttempt,
): Promise<CallOutcome | 'again'> {
  ctx.log.add({
    type: 'tool.unknown',
    tool: tool.name,
    trackingId: input.trackingId,
    data: { toolCallId: input.toolCallId, ...attempt },
  });
  const policy = policyOf(tool);
  const { requirements, allowSelfApproval } = callDeciders(
    ctx,
    tool,
    input.toolCallId,
    input.args,
    input.trackingId,
  );
  const view = await awaitHumanDecision(ctx.book, {
    kind: 'outcome',
    tool: tool.name,
    toolCallId: input.toolCallId,
    args: input.args,
    attempt,
    description: `Nobody knows whether this happened: ${describeCall(tool, input.args)}`,
    schema: tool.resultSchema ?? {},
    ...(tool.resultSchema ? { resultSchema: tool.resultSchema } : {}),
    allowedDecisions: ['respond', 'approve', 'reject'],
    requirements,
    allowSelfApproval,
    deadlineSeconds: policy.deadlineSeconds,
    // Silence is not consent: no answer by the deadline means the call failed.
    onTimeout: { action: 'reject' },
  });
  const by = view.outcome?.by ?? [];
  switch (view.status) {
    case 'responded':
      return { ok: true, result: view.outcome?.result ?? null, reportedBy: by };
    case 'approved':
      return 'again';
    case 'rejected':
      return {
        ok: false,
        error: `its outcome was unknown and ${by.join(', ') || 'a person'} said it did not complete${view.outcome?.message ? `: ${view.outcome.message}` : ''}`,
      };
    default:
      return {
        ok: false,
        error: 'its outcome was unknown and nobody said what happened before the deadline',
      };
  }
}
