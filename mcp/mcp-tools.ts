import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDefinition } from '../define/index.js';
import { ApprovalPolicy, NAME_PATTERN, toPointer, type JsonSchema } from '../protocol/index.js';
import { callMcpTool } from './call-tool.js';
import { McpConnection, serverLabel } from './connection.js';
import { jsonSchemaArgs } from './json-schema-args.js';
import {
  McpToolsOptionsShape,
  type McpToolInfo,
  type McpToolPolicy,
  type McpToolsOptions,
} from './options.js';

/**
 * The tools of one MCP server, as Countersign tools: give `tools` to `defineAgent`, and `close()`
 * when the process shuts down.
 *
 * @example
 * ```ts
 * const tickets: McpTools = await mcpTools({ server: { command: 'node', args: ['tickets-server.js'] } });
 * tickets.tools.map((tool) => tool.name); // ['search_tickets', 'close_ticket', ...]
 * await tickets.close();
 * ```
 */
export interface McpTools {
  tools: ToolDefinition[];
  /** Ends the session with the server (a stdio server's process with it). */
  close(): Promise<void>;
}

const DEFAULT_CALL_TIMEOUT_SECONDS = 600;

/**
 * Connects to an MCP server, reads its tool list, and turns each tool into a Countersign tool under
 * the policy you give it by name. A tool you did not name gets `default`, and without one, a person
 * approves each call: the server's annotations never loosen that. Each tool's input JSON Schema, as
 * the server lists it, is what the model sees and what proposals and edits are checked against.
 * Calls go through this one session (opened again if the server goes away).
 *
 * Call it where you define your agents, in the worker and in the API that starts runs alike: a run
 * keeps the tool list it started with, whatever the server lists later.
 *
 * @example
 * ```ts
 * import { defineAgent } from 'countersign';
 * import { mcpTools } from 'countersign/mcp';
 *
 * const tickets = await mcpTools({
 *   server: { command: 'node', args: ['tickets-server.js'] },
 *   policies: {
 *     search_tickets: 'safe',
 *     close_ticket: { approvers: ['support-lead'], editableFields: ['reason'] },
 *   },
 * });
 * export const support = defineAgent({
 *   name: 'support',
 *   description: 'Works the ticket queue.',
 *   instructions: 'Help with tickets. Never retry a call a human refused.',
 *   tools: tickets.tools,
 * });
 * ```
 */
export async function mcpTools(options: McpToolsOptions): Promise<McpTools> {
  const checked = McpToolsOptionsShape.safeParse(options);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new Error(`mcpTools: ${toPointer(issue.path) || 'options'}: ${issue.message}`);
  }
  const label = serverLabel(options.server);
  const connection = new McpConnection(options.server, label);
  try {
    const { tools } = await connection.open().catch((err: unknown) => {
      throw new Error(`mcpTools: could not list the tools of MCP server ${label}: ${(err as Error).message}`);
    });
    const offered = options.tools ? tools.filter((tool) => options.tools!.includes(tool.name)) : tools;
    return {
      tools: offered.map((tool) => toolOf(tool, options, connection)),
      close: () => connection.close(),
    };
  } catch (err) {
    await connection.close();
    throw err;
  }
}

function toolOf(listed: Tool, options: McpToolsOptions, connection: McpConnection): ToolDefinition {
  const info: McpToolInfo = {
    name: listed.name,
    description: listed.description ?? listed.title ?? '',
    inputSchema: listed.inputSchema as JsonSchema,
    annotations: { ...listed.annotations },
  };
  const name = `${options.prefix ?? ''}${listed.name}`;
  const where = `MCP server ${connection.label}, tool ${listed.name}`;
  if (!NAME_PATTERN.test(name)) {
    throw new Error(
      `${where}: ${JSON.stringify(name)} is not a name an agent's tool can have (a letter, then up to 63 letters, digits, _ or -): leave it out with \`tools\``,
    );
  }
  const policy: McpToolPolicy =
    options.policies?.[listed.name] ??
    (typeof options.default === 'function' ? options.default(info) : options.default) ??
    {};
  const safe = policy === 'safe';
  return {
    name,
    description: info.description,
    parameters: jsonSchemaArgs(info.inputSchema),
    parametersJsonSchema: info.inputSchema,
    safe,
    idempotent: safe || (options.idempotent ?? []).includes(listed.name),
    approval: safe ? undefined : approvalOf(where, policy, { ...info, name }),
    execute: callMcpTool(
      connection,
      listed.name,
      (options.callTimeoutSeconds ?? DEFAULT_CALL_TIMEOUT_SECONDS) * 1000,
    ),
  };
}

/** The tool's policy, checked; unless it says what the approver reads, the server's hints join the description. */
function approvalOf(
  where: string,
  policy: Exclude<McpToolPolicy, 'safe'>,
  tool: McpToolInfo,
): ApprovalPolicy {
  const checked = ApprovalPolicy.safeParse(policy);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new Error(`${where}: policy ${toPointer(issue.path) || ''}: ${issue.message}`);
  }
  if (checked.data.description !== undefined) return checked.data;
  const hints = hintsOf(tool.annotations);
  return { ...checked.data, description: `${tool.name}: ${tool.description}${hints ? ` [${hints}]` : ''}` };
}

/** The annotations the server set, in words; unset ones say nothing (their defaults are guesses). */
function hintsOf(annotations: McpToolInfo['annotations']): string {
  const words = [
    annotations.readOnlyHint === true && 'read-only',
    annotations.destructiveHint === true && 'destructive',
    annotations.destructiveHint === false && 'not destructive',
    annotations.idempotentHint === true && 'idempotent',
    annotations.openWorldHint === true && 'reaches outside systems',
  ].filter((word): word is string => typeof word === 'string');
  return words.length > 0 ? `the server says: ${words.join(', ')}` : '';
}
