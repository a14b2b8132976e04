import { z } from 'zod';
import { AgentSpec, Name } from './agent.js';
import { ApprovalView } from './approval.js';
import { Channel, DecisionOutcome } from './decision.js';
import { RunEvent } from './events.js';
import { RunStatus } from './status.js';

/** An OpenAI Chat Completions message, as the transcript keeps it. */
export const ToolCall = z.strictObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.strictObject({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCall>;

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

/** What a caller sends to start a run (POST /api/runs, the CLI). */
export const StartRunRequest = z.strictObject({
  agent: Name,
  input: z.string().min(1).max(20_000),
  requester: z.string().min(1).max(200).optional(),
});
export type StartRunRequest = z.infer<typeof StartRunRequest>;

/** The workflow's input: the run carries its own copy of the agent's spec. */
export const RunInput = z.strictObject({
  agent: AgentSpec,
  input: z.string(),
  requester: z.string().optional(),
});
export type RunInput = z.infer<typeof RunInput>;

/**
 * Who cancels a run and through which channel: the payload of the workflow's `cancel` signal, sent
 * just before Temporal's cancellation request so the run can record it on its cancelled approvals
 * and in its audit trail.
 */
export const CancelRequest = z.strictObject({
  actor: z.string().min(1).max(200),
  channel: Channel,
});
export type CancelRequest = z.infer<typeof CancelRequest>;

/** Everything about one run, as the `state` query answers it. */
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
});
export type RunState = z.infer<typeof RunState>;

/** The workflow's result. */
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

/** One line of a run list, built from the workflow's memo and search attributes without a query. */
export const RunSummary = z.strictObject({
  runId: z.string(),
  agent: z.string(),
  status: RunStatus,
  pending: z.number().int(),
  startedAt: z.string(),
  closedAt: z.string().optional(),
});
export type RunSummary = z.infer<typeof RunSummary>;
