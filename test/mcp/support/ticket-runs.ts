import { defineAgent } from '../../../define/index.js';
import type { McpTools } from '../../../mcp/index.js';
import { tokens } from '../../support/api-agents.js';
import { call, calls, say } from '../../support/fake-model.js';
import type { Stack } from '../../support/stack.js';
import { receivedCalls, type ReceivedCall } from './tickets.js';

/** The agent every MCP test drives: its tools are the tickets server's, under the test's policies. */
export function ticketAgent(tickets: McpTools) {
  return defineAgent({
    name: 'tickets',
    description: 'Works the ticket queue.',
    instructions: 'Help with tickets.',
    tools: tickets.tools,
  });
}

/** Alice decides through REST. */
export function decideAsAlice(stack: Stack, trackingId: string, body: unknown) {
  return stack.http('POST', `/api/approvals/${trackingId}/decision`, { token: tokens.alice, body });
}

/** Bob asks; the model proposes one call, then says what the tool message was. */
export function runCalling(
  stack: Stack,
  input: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<string> {
  return stack.startRun('tickets', input, tokens.bob, calls(call(tool, args, 'c1')), (request) =>
    say(`tool said: ${request.messages.at(-1)?.content}`),
  );
}

/** The calls of `tool` the server received for this run, told by the idempotency key in `_meta`. */
export function callsOfRun(log: string, runId: string, tool: string): ReceivedCall[] {
  return receivedCalls(log).filter(
    (c) => c.tool === tool && String(c.meta?.['countersign/idempotency-key']).startsWith(`${runId}/`),
  );
}
