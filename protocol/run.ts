import { z } from 'zod';
import { AgentSpec } from './agent.js';
import { Name } from './name.js';
import { ApproverIdentity } from './approver.js';
import { ApprovalView } from './approval.js';
import { Channel, DecisionOutcome } from './decision.js';
import { RunEvent } from './events.js';
import { StandingApproval } from './standing.js';
import { RunStatus } from './status.js';
import { SubAgentChain } from './sub-agents.js';

/**
 * One tool call of an assistant message, in OpenAI's Chat Completions shape: `arguments` is the JSON
 * text the model wrote.
 *
 * @example
 * ```ts
 * for (const message of state.transcript)
 *   if (message.role === 'assistant')
 *     for (const call of message.tool_calls ?? [])
 *       console.log(call.function.name, JSON.parse(call.function.arguments));
 * ```
 */
export const ToolCall = z.strictObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.strictObject({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCall>;

/**
 * An OpenAI Chat Completions message, as the transcript keeps it.
 *
 * @example
 * ```ts
 * import { getRunState } from 'countersign/client';
 *
 * const { transcript } = await getRunState(client, runId);
 * for (const message of transcript) console.log(`${message.role}: ${message.content ?? '(tool calls)'}`);
 * ```
 */
export const TranscriptMessage = z.discriminatedUnion('role', [
  z.strictObject({ role: z.literal('system'), content: z.string() }),
  z.strictObject({ role: z.literal('user'), content: z.string() }),
  z.strictObject({
    role: z.literal('assistant'),
    content: z.string().nullable(),
    tool_calls: z.array(ToolCall).optional(),
  }),
  z.strictObject({ role: z.literal('tool'), tool_call_id: z.string(), content: z.string() }),
]);
export type TranscriptMessage = z.infer<typeof TranscriptMessage>;

/**
 * What a caller sends to start a run (POST /api/runs, the CLI). Only an `admin` may name another
 * `requester` than themselves.
 *
 * @example
 * ```ts
 * import type { StartRunRequest } from 'countersign';
 *
 * const body: StartRunRequest = { agent: 'support', input: 'Refund order A-1042' };
 * const response = await fetch('https://ops.example.com/approvals/api/runs', {
 *   method: 'POST',
 *   headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
 *   body: JSON.stringify(body),
 * });
 * const { runId } = (await response.json()) as { runId: string };
 * ```
 */
export const StartRunRequest = z.strictObject({
  agent: Name,
  input: z.string().min(1).max(20_000),
  /** Whom an admin starts the run for: an approver id, by the same rule as every identity. */
  requester: ApproverIdentity.shape.id.optional(),
});
export type StartRunRequest = z.infer<typeof StartRunRequest>;

/**
 * The workflow's input: the run carries its own copy of the agent's spec.
 *
 * @example
 * ```ts
 * import { executeChild } from '@temporalio/workflow';
 * import type { RunInput } from 'countersign';
 * import { agentWorkflow } from 'countersign/workflow';
 *
 * export async function onboarding(input: RunInput): Promise<string | undefined> {
 *   const output = await executeChild(agentWorkflow, { args: [input] });
 *   return output.output;
 * }
 * ```
 */
export const RunInput = z.strictObject({
  agent: AgentSpec,
  input: z.string(),
  requester: z.string().optional(),
  /**
   * The conversation so far, which the model reads before `input`: a chat's earlier turns, read
   * from their runs (never from a client). Absent for a run that starts a conversation.
   */
  context: z.array(TranscriptMessage).optional(),
  /** Set on a sub-agent's run: the runs above it and the agents from the root down to it. */
  chain: SubAgentChain.optional(),
});
export type RunInput = z.infer<typeof RunInput>;

/**
 * Who cancels a run and through which channel: the payload of the workflow's `cancel` signal, sent
 * just before Temporal's cancellation request so the run can record it on its cancelled approvals
 * and in its audit trail.
 *
 * @example
 * ```ts
 * import { cancelRun } from 'countersign/client';
 * import { type CancelRequest } from 'countersign';
 *
 * const by: CancelRequest = { actor: 'lee', channel: 'api' };
 * await cancelRun(client, runId, by);
 * ```
 */
export const CancelRequest = z.strictObject({
  actor: z.string().min(1).max(200),
  channel: Channel,
});
export type CancelRequest = z.infer<typeof CancelRequest>;

/**
 * Who pauses or resumes a run, through which channel, and why: the payload of the workflow's
 * `pause` and `resume` signals. A resume's message reaches the model as a user message before its
 * next model call ("use the staging database").
 *
 * @example
 * ```ts
 * import { pauseRun, resumeRun } from 'countersign/client';
 * import { type RunControl } from 'countersign';
 *
 * const pause: RunControl = { actor: 'lee', channel: 'api', message: 'drafting too many emails' };
 * await pauseRun(client, runId, pause);
 * await resumeRun(client, runId, { actor: 'lee', channel: 'api', message: 'Send one email, then stop.' });
 * ```
 */
export const RunControl = z.strictObject({
  actor: z.string().min(1).max(200),
  channel: Channel,
  message: z.string().min(1).max(4000).optional(),
});
export type RunControl = z.infer<typeof RunControl>;

/**
 * Everything about one run, as the `state` query answers it.
 *
 * @example
 * ```ts
 * import { getRunState } from 'countersign/client';
 * import { type RunState } from 'countersign';
 *
 * const state: RunState = await getRunState(client, runId);
 * console.log(`${state.agent}: ${state.status} after ${state.turns} turns`);
 * ```
 */
export const RunState = z.strictObject({
  runId: z.string(),
  agent: z.string(),
  input: z.string(),
  requester: z.string().optional(),
  status: RunStatus,
  turns: z.number().int(),
  transcript: z.array(TranscriptMessage),
  pending: z.array(ApprovalView),
  approvals: z.array(ApprovalView),
  events: z.array(RunEvent),
  output: z.string().optional(),
  startedAt: z.string(),
  /**
   * The references under which the run's own worker kept tool outputs in the content store: a tool
   * message is a stored output only under one of these; any other text shaped like one is that text.
   */
  storedOutputs: z
    .array(z.string())
    .optional()
    .describe(
      'The references its own worker stored tool outputs under: only these are stored outputs of the run.',
    ),
  /** The run's standing approvals, active and ended; absent while it has none. */
  standing: z.array(StandingApproval).optional(),
});
export type RunState = z.infer<typeof RunState>;

/**
 * The workflow's result.
 *
 * @example
 * ```ts
 * import type { RunOutput } from 'countersign';
 *
 * const output: RunOutput = await client.workflow.getHandle(runId).result();
 * if (output.status === 'completed') console.log(output.output);
 * else console.log(`${output.status}: ${output.reason}`);
 * ```
 */
export const RunOutput = z.strictObject({
  status: z.enum(['completed', 'cancelled', 'failed']),
  output: z.string().optional(),
  reason: z.string().optional(),
  /** The final state, so a finished run is read from its result with no worker and no replay. */
  state: RunState.optional(),
  /** What the run did with every decision signal, so a retried request is answered from the result. */
  decisions: z.array(DecisionOutcome).optional(),
});
export type RunOutput = z.infer<typeof RunOutput>;

/**
 * Why this API could not read part of a run, which it shows with what it could read:
 * `payload_undecodable` when the run's memo (its pending approvals) is encrypted under a key the
 * API's payload codec does not hold, or otherwise not readable by its data converter.
 *
 * @example
 * ```ts
 * import type { RunSummary } from 'countersign';
 *
 * const note = (run: RunSummary) => (run.unreadable ? ` (unreadable: ${run.unreadable.reason})` : '');
 * ```
 */
export const RunUnreadable = z
  .strictObject({ reason: z.enum(['payload_undecodable']) })
  .describe('Present when this API could not read part of the run; the rest is what it could read.');
export type RunUnreadable = z.infer<typeof RunUnreadable>;

/**
 * One line of a run list, built from the workflow's memo and search attributes without a query.
 * A run whose memo this API cannot decode is listed all the same, with `unreadable` and what its
 * search attributes say (its pending count included).
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { RunSummary } from 'countersign';
 *
 * const response = await fetch('https://ops.example.com/approvals/api/runs', {
 *   headers: { authorization: `Bearer ${token}` },
 * });
 * const { runs } = z.object({ runs: z.array(RunSummary) }).parse(await response.json());
 * ```
 */
export const RunSummary = z.strictObject({
  runId: z.string(),
  agent: z.string(),
  status: RunStatus,
  pending: z.number().int(),
  startedAt: z.string(),
  closedAt: z.string().optional(),
  unreadable: RunUnreadable.optional(),
});
export type RunSummary = z.infer<typeof RunSummary>;
