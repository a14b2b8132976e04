/**
 * The OpenAPI document of `countersignChat`, which the adopter mounts at a path of their own: its
 * routes relative to that mount. The request bodies are the schemas the routes validate with; the
 * streams' events are described in chat-stream-schemas.ts; the errors are the REST API's.
 */
import type { z } from 'zod';
import { ApiErrorCode } from '../../errors/api-error-codes.js';
import { JsonObject, JsonValue } from '../../protocol/index.js';
import { ErrorBody } from '../errors.js';
import {
  CROSS_SITE,
  common,
  componentSchemas,
  error,
  jsonData,
  notJson,
  pathParam,
  tooManyStreams,
  withIdentityRefusal,
} from '../openapi.js';
import { AgUiDecision, AgUiRunInput } from './ag-ui-request.js';
import { ChatExtension, ChatId, ChatRequest } from './chat-request.js';
import {
  AgUiEventSchema,
  AgUiInterruptSchema,
  AgUiStateSchema,
  ChatApproval,
  ChatApprovalDecided,
  ChatDecisionRefused,
  UiMessageChunkSchema,
} from './chat-stream-schemas.js';

/** By component name: the request schemas are the very ones the routes validate with. */
const COMPONENTS = {
  JsonValue,
  JsonObject,
  ChatRequest,
  ChatExtension,
  AgUiRunInput,
  AgUiDecision,
  UiMessageChunk: UiMessageChunkSchema,
  ChatApproval,
  ChatApprovalDecided,
  ChatDecisionRefused,
  AgUiEvent: AgUiEventSchema,
  AgUiInterrupt: AgUiInterruptSchema,
  AgUiState: AgUiStateSchema,
  Error: ErrorBody,
  ErrorCode: ApiErrorCode,
} satisfies Record<string, z.ZodType>;

const ref = (name: keyof typeof COMPONENTS) => ({ $ref: `#/components/schemas/${name}` });
const jsonBody = (name: keyof typeof COMPONENTS) => ({
  required: true,
  content: { 'application/json': { schema: ref(name) } },
});

/**
 * The AI SDK's UI message stream: each event's `data` a chunk as JSON, the last one `[DONE]`. As in
 * the REST API's document, `schema` describes one event.
 */
const uiMessageStream = (description: string) => ({
  description,
  headers: {
    'x-vercel-ai-ui-message-stream': {
      description: 'The protocol: `v1`.',
      required: true,
      schema: { type: 'string', const: 'v1' },
    },
  },
  content: {
    'text/event-stream': {
      schema: {
        type: 'object',
        required: ['data'],
        if: { properties: { data: { const: '[DONE]' } } },
        else: { properties: { data: jsonData(ref('UiMessageChunk')) } },
      },
    },
  },
});

const agUiStream = (description: string) => ({
  description,
  content: {
    'text/event-stream': {
      schema: {
        type: 'object',
        properties: { data: jsonData(ref('AgUiEvent')) },
        required: ['data'],
      },
    },
  },
});

const TURNS =
  "Each user message of a chat is a turn, and each turn a run of the chat's agent (`chat-<chatId>-<turn>`) requested by the caller. The client's copy of the conversation is not read: the run reads it from Temporal.";
/** A chat sends its whole history with every message: a body may be up to 1 MB. */
const tooLarge = error('The body is over 1 MB (`too_large`).');
const notParsed = error('Not JSON (`invalid_json`), or nested too deep (`too_deep`).');

/**
 * The document, without `servers`: the router serves it with the path it is mounted at, which only
 * a request tells it.
 */
export function chatOpenApiDocument(): Record<string, unknown> {
  return withIdentityRefusal({
    openapi: '3.1.0',
    info: {
      title: 'Countersign chat API',
      version: '0.1.0',
      description: `The routes of \`countersignChat\`, relative to where the host mounts it: the AI SDK's chat transport (\`useChat\`) and AG-UI's (\`HttpAgent\`). ${TURNS} An approval answered in the chat is the caller's decision, under the same rules as every channel; one the rules refuse is shown in the stream, with its code. A method a path does not list here is answered 405 (\`method_not_allowed\`) with \`Allow\`.`,
    },
    security: [{ bearer: [] }],
    paths: {
      '/': {
        post: {
          operationId: 'streamChat',
          summary:
            "The chat's messages, as the AI SDK's default chat transport sends them: starts the turn of the last user message, or continues it with the approvals answered in it",
          description: `${TURNS} Each tool part in state \`approval-responded\` is a decision on the revision its approval id names; an edit goes in \`countersign.edits\`, by approval id. The response is the turn's UI message stream, until the run ends or waits for the caller.`,
          requestBody: jsonBody('ChatRequest'),
          responses: {
            '200': uiMessageStream(
              "The turn as it happens: the model's text, each tool call, its approval (`tool-approval-request` when the caller may decide it) and its outcome, Countersign's data parts, then `finish`. Stops where the run waits for the caller (`finishReason: tool-calls`) or has ended.",
            ),
            '400': error(
              'Invalid body (`invalid_request`, with `fields`): no user message, or a new turn whose last user message has no text. Or not JSON (`invalid_json`), or nested too deep (`too_deep`).',
            ),
            '403': error(
              `A turn after the first, by someone other than the person who started the chat (\`chat_not_yours\`). ${CROSS_SITE}`,
            ),
            '404': error(
              'This turn was started by someone else, and the caller may not read it (`not_found`).',
            ),
            '409': error(
              'The turns are out of order: the chat has no previous turn the caller may read (`chat_turn_missing`), or it has not ended (`chat_turn_in_progress`: answer its approvals, or wait for its answer).',
            ),
            '413': tooLarge,
            '415': notJson,
            '429': tooManyStreams,
            ...common,
          },
        },
      },
      '/{chatId}/stream': {
        get: {
          operationId: 'resumeChatStream',
          summary: "The AI SDK's stream resumption: the chat's current turn from its start, then live",
          parameters: [pathParam('chatId', "The chat's id, as the transport sends it.", ChatId)],
          responses: {
            '200': uiMessageStream('The current turn, replayed, then as it happens; as `POST /` answers.'),
            '204': { description: 'No turn to resume, or none the caller may read.' },
            '400': error('Not a chat id (`invalid_request`).'),
            '429': tooManyStreams,
            ...common,
          },
        },
      },
      '/ag-ui': {
        post: {
          operationId: 'runAgUiAgent',
          summary:
            "The chat as an AG-UI agent (`HttpAgent`): one AG-UI run of the turn of the last user message, the thread id naming the chat; a `resume` answers the last run's interrupts",
          description: `${TURNS} As AG-UI asks of an agent, a body it cannot take (\`invalid_request\` with \`fields\`, a turn out of order, an interrupt it never raised) is answered in the stream, as a RUN_ERROR with the code the REST API would give.`,
          requestBody: jsonBody('AgUiRunInput'),
          responses: {
            '200': agUiStream(
              'RUN_STARTED, the text messages, tool calls and results the client does not hold yet, the state, then RUN_FINISHED (an `interrupt` outcome while a call waits for the caller) or RUN_ERROR.',
            ),
            '400': notParsed,
            '403': error(CROSS_SITE),
            '413': tooLarge,
            '415': notJson,
            '429': tooManyStreams,
            ...common,
          },
        },
      },
      '/openapi.json': {
        get: {
          operationId: 'getChatOpenApiDocument',
          summary: 'This document',
          security: [],
          responses: { '200': { description: 'OpenAPI 3.1.' } },
        },
      },
    },
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            "An approver's token from the approvers file, unless the host's `authenticate` reads another credential.",
        },
      },
      schemas: componentSchemas(COMPONENTS, 'input'),
    },
  });
}
