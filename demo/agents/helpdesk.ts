import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineAgent, type AgentDefinition } from 'countersign';
import { mcpTools } from 'countersign/mcp';
import { demoApprovers } from './approvers.js';

export const HELPDESK_AGENT = 'helpdesk';

/** The demo's folder: the ticket server runs from it, so `--import tsx` resolves as the demo's own. */
const DEMO_DIR = fileURLToPath(new URL('../', import.meta.url));
export const TICKET_SERVER = path.join(DEMO_DIR, 'mcp', 'ticket-server.ts');

/**
 * The helpdesk agent, whose tools come from the demo's ticket system (demo/mcp/ticket-server.ts),
 * an MCP server this starts as a child process over stdio. Its tickets live in
 * `<dataDir>/demo/tickets.json`. `close` ends the server; a call after it fails.
 */
export async function helpdeskAgent(
  dataDir: string,
): Promise<{ agent: AgentDefinition; close(): Promise<void> }> {
  const tickets = await mcpTools({
    server: {
      command: process.execPath,
      args: ['--import', 'tsx', TICKET_SERVER],
      // Absolute: the server runs in the demo's folder, not this process's.
      env: { TICKETS_FILE: path.resolve(dataDir, 'demo', 'tickets.json') },
      cwd: DEMO_DIR,
      name: 'tickets',
    },
    policies: {
      list_tickets: 'safe',
      // What the approver reads is the server's description, with its hints (destructive).
      close_ticket: { ...demoApprovers('support-lead'), editableFields: ['resolution', 'note'] },
    },
    // The server dedupes on the idempotency key: a close cut off is simply attempted again.
    idempotent: ['close_ticket'],
  });
  const agent = defineAgent({
    name: HELPDESK_AGENT,
    description:
      "Works the help desk's ticket queue through the ticket system's MCP server; closing a ticket waits for a support lead.",
    instructions: [
      'You work the help desk queue with the ticket system tools: list_tickets to read it, close_ticket to close a ticket.',
      'A support lead approves each close and may change its resolution or note. If they reject it, say so and do not retry it.',
    ].join('\n'),
    tools: tickets.tools,
  });
  return { agent, close: () => tickets.close() };
}
