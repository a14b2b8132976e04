import { z } from 'zod';
import type { ApprovalPolicyInput, JsonSchema } from '../protocol/index.js';

/**
 * Where an MCP server runs: a command Countersign starts and talks to over stdio, or a URL it
 * reaches over Streamable HTTP. Secrets it needs (an API token in `headers` or `env`) come from your
 * configuration; the model never sees them, and no error message repeats them.
 *
 * @example
 * ```ts
 * import type { McpServerConfig } from 'countersign/mcp';
 *
 * const local: McpServerConfig = { command: 'node', args: ['tickets-server.js'], env: { TICKETS_DB: './tickets.db' } };
 * const remote: McpServerConfig = {
 *   url: 'https://mcp.example.com/mcp',
 *   headers: { authorization: `Bearer ${process.env.TICKETS_TOKEN}` },
 *   name: 'tickets',
 * };
 * ```
 */
export type McpServerConfig =
  | {
      command: string;
      args?: string[];
      /** Added to the few variables the MCP SDK passes on by default (PATH, HOME...). */
      env?: Record<string, string>;
      cwd?: string;
      /** How messages name the server; the command by default. */
      name?: string;
    }
  | {
      url: string | URL;
      headers?: Record<string, string>;
      /** How messages name the server; the URL's host by default. */
      name?: string;
    };

/**
 * What one MCP tool's calls need: `'safe'` (never gated, and retried freely, as `defineTool`'s
 * `safe: true`), or an approval policy, written as for `defineTool` (`{ when: 'auto' }` runs at once;
 * `{}` waits for an admin).
 *
 * @example
 * ```ts
 * import type { McpToolPolicy } from 'countersign/mcp';
 *
 * const closeTicket: McpToolPolicy = { approvers: ['support-lead'], editableFields: ['reason'] };
 * ```
 */
export type McpToolPolicy = 'safe' | ApprovalPolicyInput;

/**
 * A tool as the server lists it: what a `default` policy function may decide on. The annotations
 * are the server's hints, unverified: use them to be stricter, not looser.
 *
 * @example
 * ```ts
 * import type { McpToolInfo, McpToolPolicy } from 'countersign/mcp';
 *
 * const byHint = (tool: McpToolInfo): McpToolPolicy =>
 *   tool.annotations.destructiveHint === false ? {} : { approvers: ['ops'], requiredApprovals: 2 };
 * ```
 */
export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  annotations: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

/**
 * What `mcpTools` takes: the server, and the policy of each of its tools.
 *
 * @example
 * ```ts
 * import type { McpToolsOptions } from 'countersign/mcp';
 *
 * const options: McpToolsOptions = {
 *   server: { command: 'node', args: ['tickets-server.js'] },
 *   policies: { search_tickets: 'safe', close_ticket: { approvers: ['support-lead'] } },
 *   idempotent: ['close_ticket'],
 * };
 * ```
 */
export interface McpToolsOptions {
  server: McpServerConfig;
  /** Each tool's policy, by the server's name for it. */
  policies?: Record<string, McpToolPolicy>;
  /**
   * The policy of a tool `policies` does not name, or a function of the tool that returns one.
   * Default `{}`: a person (an admin) approves every call.
   */
  default?: McpToolPolicy | ((tool: McpToolInfo) => McpToolPolicy);
  /**
   * Tools another attempt of a call is safe for: they dedupe on the idempotency key Countersign
   * sends in the request's `_meta` (`countersign/idempotency-key`), or have no lasting effect. A
   * call of one whose server drops mid-call is attempted again; of any other tool, a person says
   * what happened. A `'safe'` tool is idempotent already. The server's `idempotentHint` counts for
   * nothing here.
   */
  idempotent?: string[];
  /** The server's tools to offer the agent, by name; all it lists when absent. */
  tools?: string[];
  /** Put before each tool's name for the agent (`tickets_`), when two servers name tools alike. */
  prefix?: string;
  /**
   * How long a call may go without an answer or a progress report before its outcome is unknown
   * (default 600). It also ends when the tool activity's own 30 minutes do.
   */
  callTimeoutSeconds?: number;
}

const PolicyOption = z.union([z.literal('safe'), z.record(z.string(), z.unknown())]);

/** The options' shape, checked where they are written; each policy is checked per tool, by name. */
export const McpToolsOptionsShape = z.strictObject({
  server: z.union([
    z.strictObject({
      command: z.string().min(1),
      args: z.array(z.string()).optional(),
      env: z.record(z.string(), z.string()).optional(),
      cwd: z.string().optional(),
      name: z.string().min(1).optional(),
    }),
    z.strictObject({
      url: z.union([z.url(), z.instanceof(URL)]),
      headers: z.record(z.string(), z.string()).optional(),
      name: z.string().min(1).optional(),
    }),
  ]),
  policies: z.record(z.string(), PolicyOption).optional(),
  default: z
    .union([PolicyOption, z.custom<(tool: McpToolInfo) => McpToolPolicy>((v) => typeof v === 'function')])
    .optional(),
  idempotent: z.array(z.string()).optional(),
  tools: z.array(z.string()).optional(),
  prefix: z.string().optional(),
  callTimeoutSeconds: z.number().positive().optional(),
});
