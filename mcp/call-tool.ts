import { ApplicationFailure } from '@temporalio/common';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { OutcomeUnknownError, type ToolContext } from '../define/index.js';
import type { JsonValue } from '../protocol/index.js';
import { errorText, outputOf } from './call-result.js';
import type { McpConnection, McpSession } from './connection.js';

/**
 * Where a call's idempotency key goes in the `tools/call` request's `_meta`: the same on every
 * attempt of one call, so a server that dedupes on it acts once.
 *
 * @example
 * ```ts
 * import { IDEMPOTENCY_KEY_META } from 'countersign/mcp';
 *
 * // In your MCP server's tool handler:
 * const key = extra._meta?.[IDEMPOTENCY_KEY_META];
 * ```
 */
export const IDEMPOTENCY_KEY_META = 'countersign/idempotency-key';

/** Failure types the model reads about; the call is not attempted again. */
export const MCP_TOOL_ERROR = 'McpToolError';
export const MCP_CALL_REFUSED = 'McpCallRefused';
export const MCP_TOOL_GONE = 'McpToolGone';

/**
 * The `execute` of one MCP tool: the approved arguments go to `tools/call` on the session open now.
 * An error result, or a request the server refused, is a failed call the model is told about. A
 * request that never left is a plain failure, attempted again. A request that went out and got no
 * answer (the server died, dropped the connection, or went silent past the timeout) may have acted:
 * its outcome is unknown.
 */
export function callMcpTool(connection: McpConnection, tool: string, timeoutMs: number) {
  return async function execute(args: Record<string, unknown>, context: ToolContext): Promise<JsonValue> {
    // Failing here, nothing was sent.
    const session = await connection.open();
    if (!session.tools.some((listed) => listed.name === tool)) {
      throw ApplicationFailure.nonRetryable(
        `the MCP server ${connection.label} no longer has a tool ${tool} (it had when this run began): the call did not run; do not call it again`,
        MCP_TOOL_GONE,
      );
    }
    context.progress(`call sent to MCP server ${connection.label}`);
    let result;
    try {
      result = await session.client.request(
        {
          method: 'tools/call',
          params: { name: tool, arguments: args, _meta: { [IDEMPOTENCY_KEY_META]: context.idempotencyKey } },
        },
        CallToolResultSchema,
        {
          signal: context.signal,
          timeout: timeoutMs,
          resetTimeoutOnProgress: true,
          onprogress: ({ progress, total, message }) =>
            context.progress(message ?? (total ? `${progress} of ${total}` : String(progress))),
        },
      );
    } catch (err) {
      throw failureOf(err, connection, session, context.signal);
    }
    if (result.isError) throw ApplicationFailure.nonRetryable(errorText(result), MCP_TOOL_ERROR);
    return outputOf(result);
  };
}

function failureOf(err: unknown, connection: McpConnection, session: McpSession, signal: AbortSignal): Error {
  const label = connection.label;
  // Cancelled, or the activity's time ran out: run-tool says what that means for this tool.
  if (signal.aborted) return err instanceof Error ? err : new Error(String(err));
  if (
    err instanceof McpError &&
    err.code !== ErrorCode.ConnectionClosed &&
    err.code !== ErrorCode.RequestTimeout
  ) {
    return ApplicationFailure.nonRetryable(
      `the MCP server ${label} refused the call: ${err.message}`,
      MCP_CALL_REFUSED,
    );
  }
  // Turned away at the door (a 4xx): the server did not take the request. After a 404 it forgot the
  // session (it restarted): the next attempt starts another.
  if (err instanceof StreamableHTTPError && err.code !== undefined && err.code >= 400 && err.code < 500) {
    if (err.code === 404) void connection.reset(session);
    return new Error(`the MCP server ${label} turned the request away (HTTP ${err.code})`);
  }
  if (neverSent(err)) return new Error(`could not reach the MCP server ${label}: ${messageOf(err)}`);
  const why =
    err instanceof McpError && err.code === ErrorCode.RequestTimeout
      ? 'did not answer in time'
      : `went away before answering (${messageOf(err)})`;
  return new OutcomeUnknownError(`the call reached the MCP server ${label}, which ${why}`);
}

/** The client had no connection, or the server refused the TCP connection: the request never left. */
function neverSent(err: unknown): boolean {
  if (err instanceof Error && err.message === 'Not connected') return true;
  const cause = err instanceof Error ? (err.cause as { code?: unknown } | undefined) : undefined;
  return cause?.code === 'ECONNREFUSED';
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
