/**
 * The demo's ticket system: a small MCP server over stdio, built with the official MCP SDK, whose
 * tools the helpdesk agent gets through `mcpTools`. It stands for a third-party server: it knows
 * nothing of Countersign beyond the idempotency key a client may send in a call's `_meta`.
 *
 * Its tickets live in the JSON file TICKETS_FILE (seeded on first start), so a restarted worker, and
 * the new server process it starts, see the same tickets.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

/** Where Countersign puts a call's idempotency key: the same on every attempt of one call. */
const IDEMPOTENCY_KEY = 'countersign/idempotency-key';

const RESOLUTIONS = ['resolved', 'duplicate', 'wont-fix'] as const;

const Ticket = z.object({
  id: z.string(),
  title: z.string(),
  requester: z.string(),
  status: z.enum(['open', 'closed']),
  resolution: z.enum(RESOLUTIONS).optional(),
  note: z.string().optional(),
  /** The idempotency key of the call that closed it: that call, attempted again, closes nothing more. */
  closedBy: z.string().optional(),
});
type Ticket = z.infer<typeof Ticket>;

const SEED: Ticket[] = [
  {
    id: 'T-1001',
    title: 'Printer on the 3rd floor jams on every job',
    requester: 'dana@acme.example',
    status: 'open',
  },
  {
    id: 'T-1002',
    title: 'Cannot sign in to the VPN since the password reset',
    requester: 'lee@acme.example',
    status: 'open',
  },
  {
    id: 'T-1003',
    title: 'Invoice PDF shows the wrong VAT number',
    requester: 'sam@acme.example',
    status: 'open',
  },
  {
    id: 'T-1004',
    title: 'Laptop battery swells',
    requester: 'kim@acme.example',
    status: 'closed',
    resolution: 'resolved',
    note: 'Battery replaced',
  },
];

const file = process.env.TICKETS_FILE;
if (!file) throw new Error('ticket-server: set TICKETS_FILE to the JSON file that keeps the tickets');

function load(): Ticket[] {
  if (!existsSync(file!)) return SEED;
  return z.array(Ticket).parse(JSON.parse(readFileSync(file!, 'utf8')));
}

/** Written whole, then renamed over the old file: a server killed mid-write leaves the old tickets. */
function save(tickets: Ticket[]): void {
  mkdirSync(path.dirname(file!), { recursive: true });
  writeFileSync(`${file}.partial`, `${JSON.stringify(tickets, null, 2)}\n`);
  renameSync(`${file}.partial`, file!);
}

/** A ticket as clients see it: the dedupe record stays inside. */
function shown({ closedBy: _, ...ticket }: Ticket): Omit<Ticket, 'closedBy'> {
  return ticket;
}

function result(structured: Record<string, unknown>) {
  return {
    content: [{ type: 'text' as const, text: JSON.stringify(structured) }],
    structuredContent: structured,
  };
}

function failure(text: string) {
  return { content: [{ type: 'text' as const, text }], isError: true };
}

const server = new McpServer({ name: 'demo-tickets', version: '1.0.0' });

server.registerTool(
  'list_tickets',
  {
    description: 'List the help desk tickets, optionally only the open or the closed ones.',
    inputSchema: { status: z.enum(['open', 'closed', 'all']).optional().describe('Default: all') },
    annotations: { readOnlyHint: true },
  },
  ({ status }) => {
    const tickets = load().filter((t) => !status || status === 'all' || t.status === status);
    return result({ tickets: tickets.map(shown) });
  },
);

server.registerTool(
  'close_ticket',
  {
    description: 'Close a help desk ticket with a resolution; the requester is told it is closed.',
    inputSchema: {
      id: z
        .string()
        .regex(/^T-\d+$/)
        .describe('The ticket id, e.g. T-1002'),
      resolution: z.enum(RESOLUTIONS),
      note: z.string().max(500).optional().describe('A line for the requester'),
    },
    annotations: { destructiveHint: true, idempotentHint: true },
  },
  ({ id, resolution, note }, extra) => {
    const key = extra._meta?.[IDEMPOTENCY_KEY];
    const tickets = load();
    const ticket = tickets.find((t) => t.id === id);
    if (!ticket) return failure(`there is no ticket ${id}`);
    if (ticket.status === 'closed') {
      // The same call again (its first answer was lost): it did close the ticket; nothing more to do.
      if (typeof key === 'string' && ticket.closedBy === key) return result({ ticket: shown(ticket) });
      return failure(`${id} is already closed (${ticket.resolution ?? 'no resolution'})`);
    }
    Object.assign(ticket, {
      status: 'closed',
      resolution,
      ...(note ? { note } : {}),
      ...(typeof key === 'string' ? { closedBy: key } : {}),
    });
    save(tickets);
    return result({ ticket: shown(ticket) });
  },
);

await server.connect(new StdioServerTransport());
