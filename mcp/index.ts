/**
 * `countersign/mcp`: tools from any MCP server, under Countersign's policies. Needs
 * `@modelcontextprotocol/sdk`, an optional peer dependency: only a process that imports this needs it.
 *
 * @example
 * ```ts
 * import { mcpTools } from 'countersign/mcp';
 * ```
 *
 * @module
 */
export { mcpTools, type McpTools } from './mcp-tools.js';
export type { McpServerConfig, McpToolInfo, McpToolPolicy, McpToolsOptions } from './options.js';
export { IDEMPOTENCY_KEY_META } from './call-tool.js';
