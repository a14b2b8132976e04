import { ApplicationFailure, Context } from '@temporalio/activity';
import { whileHeartbeating } from './keep-alive.js';
import type { AgentDefinition, ToolDefinition } from '../define/index.js';
import type { JsonValue } from '../protocol/index.js';
import type { ToolRunInput } from '../workflows/activity-types.js';

/**
 * Runs one approved (or auto) tool call. The idempotency key is the same for every attempt of the
 * call, across retries and worker crashes, so a tool with side effects can make them happen once.
 */
export function createRunTool(agents: AgentDefinition[]) {
  const tools = new Map<string, ToolDefinition>();
  for (const agent of agents) for (const tool of agent.tools) tools.set(`${agent.name}/${tool.name}`, tool);

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
    const context = Context.current();
    return whileHeartbeating(() =>
      tool.execute(parsed.data, {
        runId: input.runId,
        toolCallId: input.toolCallId,
        idempotencyKey: `${input.runId}/${input.toolCallId}`,
        trackingId: input.trackingId,
        approvedBy: input.approvedBy,
        signal: context.cancellationSignal,
      }),
    );
  };
}
