import { basename } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from './options.js';
import { watchedFetch } from './watched-fetch.js';

/** One session with the server: its client, and the tools it listed when the session began. */
export interface McpSession {
  client: Client;
  tools: Tool[];
}

/**
 * A client of one MCP server that connects on first use and again after the server went away (a
 * stdio server that died, an HTTP server that restarted): calls in flight when it goes fail, and the
 * next call opens a new session. Concurrent calls share one session.
 */
export class McpConnection {
  private session?: Promise<McpSession>;
  private closed = false;

  constructor(
    private readonly server: McpServerConfig,
    /** How messages name the server; never a URL's credentials or a header. */
    readonly label: string,
  ) {}

  open(): Promise<McpSession> {
    if (this.closed) return Promise.reject(new Error(`the client of MCP server ${this.label} is closed`));
    if (!this.session) {
      const session = this.connect(() => this.forget(session));
      this.session = session;
      session.catch(() => this.forget(session));
    }
    return this.session;
  }

  /** Drops a session the server no longer knows (HTTP 404), so the next call starts another. */
  async reset(session: McpSession): Promise<void> {
    if (this.session && (await this.session.catch(() => undefined)) === session) this.session = undefined;
    await session.client.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    const session = await this.session?.catch(() => undefined);
    this.session = undefined;
    await session?.client.close();
  }

  private forget(session: Promise<McpSession>): void {
    if (this.session === session) this.session = undefined;
  }

  private async connect(onClose: () => void): Promise<McpSession> {
    const client = new Client({ name: 'countersign', version: '1' });
    client.onclose = onClose;
    await client.connect(this.transport(client));
    try {
      return { client, tools: await listTools(client) };
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err;
    }
  }

  private transport(client: Client): Transport {
    if ('command' in this.server) {
      const { command, args, env, cwd } = this.server;
      return new StdioClientTransport({ command, args, env, cwd, stderr: 'inherit' });
    }
    const { url, headers } = this.server;
    return new StreamableHTTPClientTransport(new URL(url), {
      ...(headers ? { requestInit: { headers } } : {}),
      fetch: watchedFetch(() => void client.close()),
    });
  }
}

/** Every tool the server lists, page by page. */
async function listTools(client: Client): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/**
 * A server's name for messages: the one given, or its command's file name, or its URL's host (never
 * the arguments or the path, which may carry a token).
 */
export function serverLabel(server: McpServerConfig): string {
  if (server.name) return server.name;
  if ('command' in server) return basename(server.command);
  return new URL(server.url).host;
}
