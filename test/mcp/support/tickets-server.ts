/**
 * A small ticket system as a real MCP server, built with the official SDK, for the MCP tests. Run as
 * a child process: over stdio by default, over Streamable HTTP with `--http` (it prints
 * `listening <port>` on stdout, and with TICKETS_TOKEN set it takes only requests bearing it).
 *
 * Every call it receives is appended to the JSON-lines file TICKETS_LOG (tool, arguments, `_meta`,
 * the authorization header it saw, this process's pid), so a test counts attempts and sees what
 * reached the server. TICKETS_CONFIG names a JSON file read at each start: `{ "without": [tool] }`
 * leaves tools out, as a later version of a server might.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const log = process.env.TICKETS_LOG;
const config = process.env.TICKETS_CONFIG;
const without: string[] =
  config && existsSync(config)
    ? ((JSON.parse(readFileSync(config, 'utf8')) as { without?: string[] }).without ?? [])
    : [];

function record(tool: string, args: unknown, meta: unknown, authorization?: string): void {
  if (!log) return;
  appendFileSync(log, `${JSON.stringify({ tool, args, meta, authorization, pid: process.pid })}\n`);
}

/** Tickets created, by the idempotency key that created them: a retried create makes no second one. */
const created = new Map<string, string>();
let next = 1;

type Extra = { _meta?: Record<string, unknown>; requestInfo?: { headers: IncomingMessage['headers'] } };

function ticketServer(): McpServer {
  const server = new McpServer({ name: 'tickets', version: '1.0.0' });
  const add: typeof server.registerTool = (name, definition, handler) => {
    if (without.includes(name)) return undefined as never;
    return server.registerTool(name, definition, handler);
  };
  const seen = (tool: string, args: unknown, extra: Extra) =>
    record(tool, args, extra._meta, extra.requestInfo?.headers.authorization as string | undefined);

  add(
    'search_tickets',
    {
      description: 'Find tickets whose title contains the query.',
      inputSchema: { query: z.string() },
      annotations: { readOnlyHint: true },
    },
    (args, extra) => {
      seen('search_tickets', args, extra);
      const found = [{ id: 'T-1', title: `Printer on fire (${args.query})`, status: 'open' }];
      return {
        content: [{ type: 'text', text: JSON.stringify({ tickets: found }) }],
        structuredContent: { tickets: found },
      };
    },
  );
  add(
    'create_ticket',
    {
      description: 'Open a ticket. Dedupes on the countersign/idempotency-key in _meta.',
      inputSchema: { title: z.string().min(3), priority: z.enum(['low', 'normal', 'urgent']) },
      annotations: { destructiveHint: false, idempotentHint: true },
    },
    (args, extra) => {
      seen('create_ticket', args, extra);
      const key = String(extra._meta?.['countersign/idempotency-key'] ?? randomUUID());
      let id = created.get(key);
      if (!id) created.set(key, (id = `T-${next++}`));
      return { content: [{ type: 'text', text: `created ${id}: ${args.title} (${args.priority})` }] };
    },
  );
  add(
    'close_ticket',
    {
      description: 'Close a ticket for good.',
      inputSchema: { id: z.string().regex(/^T-\d+$/), reason: z.string().min(1) },
      annotations: { destructiveHint: true },
    },
    (args, extra) => {
      seen('close_ticket', args, extra);
      return { content: [{ type: 'text', text: `closed ${args.id}: ${args.reason}` }] };
    },
  );
  add(
    'reopen_ticket',
    { description: 'Reopen a closed ticket.', inputSchema: { id: z.string() } },
    (args, extra) => {
      seen('reopen_ticket', args, extra);
      return { content: [{ type: 'text', text: `ticket ${args.id} is not closed` }], isError: true };
    },
  );
  add(
    'attach_screenshot',
    { description: 'Attach a screenshot to a ticket.', inputSchema: { id: z.string() } },
    (args, extra) => {
      seen('attach_screenshot', args, extra);
      return {
        content: [
          { type: 'text', text: `attached to ${args.id}` },
          { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
        ],
      };
    },
  );
  add(
    'export_tickets',
    { description: 'Export every ticket (slow).', inputSchema: { format: z.string() } },
    async (args, extra) => {
      seen('export_tickets', args, extra);
      // Never answers: the test kills the server while the call waits.
      await new Promise(() => undefined);
      return { content: [] };
    },
  );
  add(
    'sync_tickets',
    {
      description: 'Sync tickets upstream. Dedupes on the countersign/idempotency-key in _meta.',
      inputSchema: { upstream: z.string() },
    },
    async (args, extra) => {
      const key = extra._meta?.['countersign/idempotency-key'];
      const before = log && existsSync(log) ? readFileSync(log, 'utf8') : '';
      const again = before
        .split('\n')
        .some((line) => line && JSON.parse(line).meta?.['countersign/idempotency-key'] === key);
      seen('sync_tickets', args, extra);
      // The first attempt never answers (the test kills the server); a retry finds its key done.
      if (!again) await new Promise(() => undefined);
      return { content: [{ type: 'text', text: `synced to ${args.upstream}` }] };
    },
  );
  return server;
}

if (process.argv.includes('--http')) {
  const token = process.env.TICKETS_TOKEN;
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    if (token && req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401).end();
      return;
    }
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      if (id !== undefined) {
        res.writeHead(404).end();
        return;
      }
      const opened = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, opened),
      });
      transport = opened;
      await ticketServer().connect(opened);
    }
    await transport.handleRequest(req, res);
  });
  http.listen(0, '127.0.0.1', () => {
    process.stdout.write(`listening ${(http.address() as AddressInfo).port}\n`);
  });
} else {
  await ticketServer().connect(new StdioServerTransport());
}
