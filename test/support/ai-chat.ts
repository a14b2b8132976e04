/**
 * A chat front end in Node, as the AI SDK builds one: its own `AbstractChat` over a plain state (what
 * `@ai-sdk/react`'s `Chat` keeps in React), its default HTTP transport, and its own stream reader,
 * against `countersignChat` mounted in an express app beside the stack's API.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AbstractChat,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  parseJsonEventStream,
  readUIMessageStream,
  uiMessageChunkSchema,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import express from 'express';
import { countersignChat } from '../../api/chat/chat-router.js';
import type { AgentDefinition } from '../../define/index.js';
import type { ApproverIdentity } from '../../protocol/index.js';
import type { Stack } from './stack.js';
import { PlainChatState } from './plain-chat-state.js';
import { waitFor } from './wait-for.js';

export class NodeChat extends AbstractChat<UIMessage> {
  /** Every request the transport made, as `METHOD path`. */
  readonly requests: string[] = [];

  constructor(url: string, id: string, user: string) {
    const requests: string[] = [];
    super({
      id,
      state: new PlainChatState<UIMessage>(),
      transport: new DefaultChatTransport({
        api: `${url}/chat`,
        headers: { authorization: `Bearer ${user}` },
        fetch: (input, init) => {
          requests.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
          return fetch(input, init);
        },
      }),
      // As an app that lets people answer approvals in the chat configures `useChat`.
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    this.requests = requests;
  }

  /** Waits until `probe` finds something in the chat's messages. */
  until<T>(probe: (messages: UIMessage[]) => T | undefined, what: string): Promise<T> {
    return waitFor(async () => probe(this.messages), what);
  }

  /** Waits until the chat has taken a whole response and is ready for the next message. */
  async settled(): Promise<void> {
    await waitFor(async () => (this.status === 'ready' ? true : undefined), 'the chat to be ready');
    if (this.error) throw this.error;
  }
}

type Part = UIMessage['parts'][number];
export type ToolPart = Extract<Part, { toolCallId: string }>;
export type DataPart = { type: `data-${string}`; id?: string; data: Record<string, unknown> };

export function toolPart(message: UIMessage | undefined, toolCallId: string): ToolPart | undefined {
  return message?.parts.find(
    (part): part is ToolPart => 'toolCallId' in part && part.toolCallId === toolCallId,
  );
}

export function dataPart(message: UIMessage | undefined, type: string, id?: string): DataPart | undefined {
  return message?.parts.find(
    (part): part is DataPart & Part =>
      part.type === type && (id === undefined || ('id' in part && part.id === id)),
  ) as DataPart | undefined;
}

export function textOf(message: UIMessage | undefined): string {
  return (message?.parts ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
}

export interface ChatApp {
  url: string;
  /** Who each bearer token names (`Bearer <id>`): change it to change someone's roles. */
  directory: Map<string, ApproverIdentity>;
  chat(id: string, user: string): NodeChat;
  /** POSTs a body as the default transport does, with the caller's token. */
  post(user: string, body: unknown): Promise<Response>;
  close(): Promise<void>;
}

/** `countersignChat` for `agent`, on the stack's Temporal and worker, in an app of its own. */
export async function startChatApp(
  stack: Stack,
  agents: AgentDefinition[],
  agent: string,
  people: ApproverIdentity[],
): Promise<ChatApp> {
  const directory = new Map(people.map((person) => [person.id, person]));
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const app = express();
  app.use(
    '/chat',
    countersignChat({
      client: stack.client,
      taskQueue: stack.taskQueue,
      agents,
      agent,
      signingSecret: stack.signingSecret,
      publicUrl: url,
      defaultModel: 'fake-model',
      authenticate: (req) => {
        const id = /^Bearer (\S+)$/.exec(req.get('authorization') ?? '')?.[1];
        return id === undefined ? undefined : directory.get(id);
      },
    }),
  );
  server.on('request', app);
  return {
    url,
    directory,
    chat: (id, user) => new NodeChat(url, id, user),
    post: (user, body) =>
      fetch(`${url}/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${user}` },
        body: JSON.stringify(body),
      }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A UI message stream read as the AI SDK reads it: each SSE event checked against its chunk schema
 * (a chunk outside the protocol fails), then `readUIMessageStream` builds the message.
 */
export function readChatStream(response: Response): AsyncIterable<UIMessage> {
  const chunks = parseJsonEventStream({ stream: response.body!, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream<{ success: boolean; value?: UIMessageChunk; error?: unknown }, UIMessageChunk>({
      transform(chunk, controller) {
        if (!chunk.success) throw chunk.error;
        controller.enqueue(chunk.value!);
      },
    }),
  );
  return readUIMessageStream({ stream: chunks, terminateOnError: true });
}
