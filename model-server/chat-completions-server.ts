import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';

/**
 * The parts of a Chat Completions request a scripted or rule-based model looks at.
 *
 * @example
 * ```ts
 * fake.script('Refund order A-1', (request: ChatCompletionRequest) =>
 *   say(`I was offered ${request.tools?.length ?? 0} tools.`),
 * );
 * ```
 */
export interface ChatCompletionRequest {
  model: string;
  messages: ChatMessage[];
  tools?: { type: 'function'; function: { name: string; description?: string; parameters?: unknown } }[];
  [key: string]: unknown;
}

export type ChatMessage =
  | { role: 'system' | 'developer' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ReplyToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/**
 * One tool call in a scripted or rule-based model's reply.
 *
 * @example
 * ```ts
 * import type { AssistantReply } from 'countersign/testing';
 * import type { ReplyToolCall } from 'countersign/dev';
 *
 * const lookup: ReplyToolCall = { function: { name: 'lookup_order', arguments: { orderId: 'A-1' } } };
 * const reply: AssistantReply = { content: null, tool_calls: [lookup] };
 * ```
 */
export interface ReplyToolCall {
  /** Generated when absent. */
  id?: string;
  type?: 'function';
  /** `arguments` may be given as an object; it is sent as JSON text, as OpenAI does. */
  function: { name: string; arguments: string | Record<string, unknown> };
}

/**
 * The assistant message to answer with: text, tool calls, or both.
 *
 * @example
 * ```ts
 * const reply: AssistantReply = { content: null, tool_calls: [{ function: { name: 'lookup', arguments: { id: 7 } } }] };
 * ```
 */
export interface AssistantReply {
  content?: string | null;
  tool_calls?: ReplyToolCall[];
}

/**
 * An HTTP error to inject, for example a 429 or a 500 that the client should retry.
 *
 * @example
 * ```ts
 * const reply: ErrorReply = { status: 503, message: 'overloaded', headers: { 'retry-after-ms': '10' } };
 * ```
 */
export interface ErrorReply {
  status: number;
  message?: string;
  headers?: Record<string, string>;
}

/**
 * What the model answers a request with: an assistant message, or an HTTP error.
 *
 * @example
 * ```ts
 * const replies: ModelReply[] = [{ status: 429 }, { content: 'Hello!' }];
 * ```
 */
export type ModelReply = AssistantReply | ErrorReply;
/**
 * Answers one Chat Completions request: what `serveChatCompletions` calls for each.
 *
 * @example
 * ```ts
 * import type { ChatCompletionHandler } from 'countersign/dev';
 *
 * // Look the order up first; once its result is in the conversation, answer.
 * const handler: ChatCompletionHandler = (request) =>
 *   request.messages.some((message) => message.role === 'tool')
 *     ? { content: 'Your order has shipped.' }
 *     : { content: null, tool_calls: [{ function: { name: 'lookup_order', arguments: { id: 'A-1' } } }] };
 * ```
 */
export type ChatCompletionHandler = (request: ChatCompletionRequest) => ModelReply | Promise<ModelReply>;

/**
 * A running `serveChatCompletions` endpoint.
 *
 * @example
 * ```ts
 * import { createWorker } from 'countersign/worker';
 * import { serveChatCompletions, type ChatCompletionsServer } from 'countersign/dev';
 *
 * const server: ChatCompletionsServer = await serveChatCompletions(() => ({ content: 'Hello!' }));
 * const worker = await createWorker({ connection, agents: [support], model: { baseUrl: server.url } });
 * // ... after the test:
 * await server.close();
 * ```
 */
export interface ChatCompletionsServer {
  /** Base URL for an OpenAI client, ending in /v1. */
  url: string;
  close(): Promise<void>;
}

export function isErrorReply(reply: ModelReply): reply is ErrorReply {
  return typeof (reply as ErrorReply).status === 'number';
}

/** Room for a long run's whole transcript (300 turns of 50 KB tool outputs send 15 MB), and a bound. */
const MAX_BODY = 64 * 1024 * 1024;

/**
 * A small OpenAI-compatible Chat Completions endpoint whose answers come from `handler`: a model
 * that follows rules instead of a script (`FakeModel` is built on it).
 *
 * @example
 * ```ts
 * import { serveChatCompletions } from 'countersign/dev';
 *
 * const model = await serveChatCompletions((request) => ({
 *   content: `You sent ${request.messages.length} messages.`,
 * }));
 * // createWorker({ ..., model: { baseUrl: model.url } })
 * await model.close();
 * ```
 */
export async function serveChatCompletions(
  handler: ChatCompletionHandler,
  options: { port?: number; host?: string } = {},
): Promise<ChatCompletionsServer> {
  const server = createServer((req, res) => {
    void respond(req, res).catch((err: unknown) => {
      sendJson(res, 500, errorBody(500, err instanceof Error ? err.message : String(err)));
    });
  });

  async function respond(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/v1/models') {
      sendJson(res, 200, { object: 'list', data: [] });
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      sendJson(res, 404, errorBody(404, `no route for ${req.method} ${path}`));
      return;
    }
    let request: ChatCompletionRequest;
    try {
      request = JSON.parse(await readBody(req)) as ChatCompletionRequest;
    } catch (err) {
      sendJson(res, 400, errorBody(400, `invalid JSON body: ${(err as Error).message}`));
      return;
    }
    if (!Array.isArray(request.messages)) {
      sendJson(res, 400, errorBody(400, 'messages must be an array'));
      return;
    }
    const reply = await handler(request);
    if (isErrorReply(reply)) {
      // A tiny retry-after keeps the openai client's backoff short for injected errors.
      sendJson(res, reply.status, errorBody(reply.status, reply.message ?? 'injected error'), {
        'retry-after-ms': '20',
        ...reply.headers,
      });
      return;
    }
    const toolCalls = reply.tool_calls?.map((call) => ({
      // Unique across server restarts too: tools dedupe on the run and call id.
      id: call.id ?? `call_${randomBytes(9).toString('base64url')}`,
      type: 'function' as const,
      function: {
        name: call.function.name,
        arguments:
          typeof call.function.arguments === 'string'
            ? call.function.arguments
            : JSON.stringify(call.function.arguments),
      },
    }));
    const hasCalls = toolCalls !== undefined && toolCalls.length > 0;
    sendJson(res, 200, {
      id: `chatcmpl-${randomBytes(9).toString('base64url')}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: request.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: reply.content ?? null,
            refusal: null,
            ...(hasCalls ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: hasCalls ? 'tool_calls' : 'stop',
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    });
  }

  // Kept-alive sockets stay open longer than clients keep them (fetch's 4 s): a server closing an
  // idle socket as a client sends on it fails that call, and not every client retries.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function errorBody(status: number, message: string) {
  const type =
    status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { error: { message, type, code: null, param: null } };
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}
