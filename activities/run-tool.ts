import { ApplicationFailure, Context } from '@temporalio/activity';
import { whileHeartbeating } from './keep-alive.js';
import type { AgentDefinition, ToolDefinition } from '../define/index.js';
import type { JsonValue } from '../protocol/index.js';
import type { ToolRunInput } from '../workflows/activity-types.js';

/** Under the 2 MB a Temporal cluster takes in one payload by default, with room for the rest. */
export const DEFAULT_MAX_TOOL_OUTPUT_BYTES = 1_500_000;

/**
 * Runs one approved (or auto) tool call. The idempotency key is the same for every attempt of the
 * call, across retries and worker crashes, so a tool with side effects can make them happen once.
 * An output over `maxOutputBytes` fails the call without another attempt: the tool has acted, and
 * the server would refuse the output; the model is told why.
 */
export function createRunTool(agents: AgentDefinition[], maxOutputBytes = DEFAULT_MAX_TOOL_OUTPUT_BYTES) {
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
    const output = await whileHeartbeating(() =>
      tool.execute(parsed.data, {
        runId: input.runId,
        toolCallId: input.toolCallId,
        idempotencyKey: `${input.runId}/${input.toolCallId}`,
        trackingId: input.trackingId,
        approvedBy: input.approvedBy,
        signal: context.cancellationSignal,
      }),
    );
    const bytes = Buffer.byteLength(JSON.stringify(output) ?? '');
    if (bytes > maxOutputBytes) {
      throw ApplicationFailure.nonRetryable(
        `the tool ran, but its output is ${bytes} bytes, over the ${maxOutputBytes} bytes a run keeps of one tool output: ask for less (a page, a summary, a filter)`,
        'ToolOutputTooLarge',
      );
    }
    return output;
  };
}
