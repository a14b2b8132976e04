import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ContentStore } from '../content-store/content-store.js';
import { whileHeartbeating } from './keep-alive.js';
import { OutcomeUnknownError, type AgentDefinition, type ToolDefinition } from '../define/index.js';
import { withSubAgents } from '../define/sub-agents.js';
import type { JsonValue, UnknownAttempt } from '../protocol/index.js';
import { markerShaped, storedOutput } from '../protocol/stored-output.js';
import type { SecretSealer } from '../secrets/sealer.js';
import { withholder, withholdInError, withholdInOutput } from './withhold-secrets.js';
import { OUTCOME_UNKNOWN_FAILURE, type ToolRunInput } from '../workflows/activity-types.js';

/** Under the 2 MB a Temporal cluster takes in one payload by default, with room for the rest. */
export const DEFAULT_MAX_TOOL_OUTPUT_BYTES = 1_500_000;

/** With a content store, outputs over this go to it: a few pages of text stay in the history. */
export const DEFAULT_STORE_OUTPUTS_OVER_BYTES = 16_384;

export interface ToolOutputLimits {
  /** The largest output kept in the history; see `CreateWorkerOptions.maxToolOutputBytes`. */
  maxOutputBytes?: number;
  /** Where larger outputs go instead, when there is one. */
  store?: ContentStore;
  /** With a store, outputs over this many bytes go to it. */
  storeOverBytes?: number;
  /** This worker's identity, shown with an attempt whose outcome is unknown. */
  worker?: string;
  /** Opens the secrets people supplied, for the tools that declare them. */
  sealer?: SecretSealer;
}

/** A tool that reports a step sooner says when it started with that step, in one heartbeat. */
const FIRST_BEAT_MS = 500;

/** A step as long as anyone reads in the inbox. */
const MAX_STEP_CHARS = 500;

/**
 * Runs one approved (or auto) tool call. The idempotency key is the same for every attempt of the
 * call, across retries and worker crashes, so a tool with side effects can make them happen once.
 * With a content store, an output over `storeOverBytes` is kept there and the run holds its
 * reference (outputs a human reviews stay in the run, where the reviewer reads them). Otherwise an
 * output over `maxOutputBytes` fails the call without another attempt: the tool has acted, and the
 * server would refuse the output; the model is told why.
 */
export function createRunTool(agents: AgentDefinition[], limits: ToolOutputLimits = {}) {
  const maxOutputBytes = limits.maxOutputBytes ?? DEFAULT_MAX_TOOL_OUTPUT_BYTES;
  const storeOverBytes = limits.storeOverBytes ?? DEFAULT_STORE_OUTPUTS_OVER_BYTES;
  const tools = new Map<string, ToolDefinition>();
  // A sub-agent's tools run here too: its runs are children of the runs of the agents given.
  for (const agent of withSubAgents(agents))
    for (const tool of agent.tools) tools.set(`${agent.name}/${tool.name}`, tool);

  return async function runTool(input: ToolRunInput): Promise<JsonValue> {
    const tool = tools.get(`${input.agent}/${input.tool}`);
    if (!tool) throw new Error(`this worker has no tool ${input.tool} for agent ${input.agent}`);
    const parsed = tool.parameters.safeParse(input.args);
    if (!parsed.success) {
      throw ApplicationFailure.nonRetryable(
        `invalid arguments: ${parsed.error.message}`,
        'InvalidToolArguments',
      );
    }
    const secrets = openSecrets(tool, input, limits.sealer);
    const withhold = withholder(Object.values(secrets));
    const context = Context.current();
    // Which attempt this is, the workflow counts itself: each one is an activity of its own.
    const started: Omit<UnknownAttempt, 'reason' | 'attempt'> = {
      startedAt: new Date().toISOString(),
      ...(limits.worker ? { worker: limits.worker } : {}),
    };
    let progress: UnknownAttempt['progress'];
    const attempt = () => ({ ...started, ...(progress ? { progress } : {}) });
    // Whenever this worker dies, the server should hold when and where the attempt began. The SDK
    // sends the first heartbeat at once and throttles the rest (to 0.8 of the heartbeat timeout),
    // so a step reported early goes first and carries the start with it.
    const first = tool.idempotent ? undefined : setTimeout(() => context.heartbeat(attempt()), FIRST_BEAT_MS);
    let output: JsonValue;
    try {
      output = await whileHeartbeating(
        () =>
          tool.execute(parsed.data, {
            runId: input.runId,
            toolCallId: input.toolCallId,
            idempotencyKey: `${input.runId}/${input.toolCallId}`,
            trackingId: input.trackingId,
            approvedBy: input.approvedBy,
            signal: context.cancellationSignal,
            secrets,
            progress(step) {
              progress = {
                step: withhold(String(step)).slice(0, MAX_STEP_CHARS),
                at: new Date().toISOString(),
              };
              clearTimeout(first);
              context.heartbeat(attempt());
            },
          }),
        attempt,
      );
    } catch (err) {
      // Cut off (a timeout, the worker shutting down) or unsure itself: nobody knows what it did.
      if (!tool.idempotent && (err instanceof OutcomeUnknownError || context.cancellationSignal.aborted)) {
        throw ApplicationFailure.create({
          type: OUTCOME_UNKNOWN_FAILURE,
          message: withhold(err instanceof Error ? err.message : String(err)),
          nonRetryable: true,
          details: [attempt()],
        });
      }
      throw tool.secrets?.length ? withholdInError(err, withhold) : err;
    } finally {
      clearTimeout(first);
    }
    if (tool.secrets?.length) output = withholdInOutput(output, withhold);
    // The text the model will read, as the workflow writes it (tool-messages.ts).
    const text = typeof output === 'string' ? output : (JSON.stringify(output) ?? '');
    // The workflow takes a result in the marker's shape for an output this worker stored: a tool's
    // own output of that shape goes on as its text, which the model reads all the same.
    if (markerShaped(output)) output = text;
    const bytes = Buffer.byteLength(text);
    const reviewed = !tool.safe && tool.approval?.reviewResult === true;
    if (limits.store && bytes > storeOverBytes && !reviewed) {
      const ref = await limits.store.put(text);
      return { ...storedOutput(ref, bytes, await limits.store.id?.()) };
    }
    if (bytes > maxOutputBytes) {
      throw ApplicationFailure.nonRetryable(
        `the tool ran, but its output is ${bytes} bytes, over the ${maxOutputBytes} bytes a run keeps of one tool output: ask for less (a page, a summary, a filter)`,
        'ToolOutputTooLarge',
      );
    }
    return output;
  };
}

/**
 * The secrets the call carries, opened for `execute`: only those the tool declares, each bound to
 * the approval it answered. A worker without the secret keys, or without the key a secret was sealed
 * with, fails the call without another attempt; the error names the secret, never its value.
 */
function openSecrets(
  tool: ToolDefinition,
  input: ToolRunInput,
  sealer: SecretSealer | undefined,
): Record<string, string> {
  const declared = new Set((tool.secrets ?? []).map((secret) => secret.name));
  const carried = (input.secrets ?? []).filter((secret) => declared.has(secret.name));
  if (carried.length === 0) return {};
  if (!sealer) {
    throw ApplicationFailure.nonRetryable(
      `${tool.name} needs secrets, and this worker holds no secret keys (set COUNTERSIGN_SECRET_KEYS)`,
      'SecretUnavailable',
    );
  }
  const opened: Record<string, string> = {};
  for (const { name, trackingId, sealed } of carried) {
    try {
      opened[name] = sealer.open(sealed, { trackingId, name });
    } catch (err) {
      throw ApplicationFailure.nonRetryable((err as Error).message, 'SecretUnavailable');
    }
  }
  return opened;
}
