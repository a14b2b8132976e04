import { z } from 'zod';
import {
  AgentSpec,
  ApprovalPolicy,
  ApprovalView,
  Condition,
  Decision,
  DecisionOutcome,
  JsonObject,
  JsonValue,
  PolicyRule,
  RunEvent,
  RunState,
  RunSummary,
  StartRunRequest,
} from '../protocol/index.js';
import { ApiErrorCode } from '../errors/api-error-codes.js';
import { ErrorBody } from './errors.js';
import { MAX_JSON_DEPTH } from './json-depth.js';
import { GLOBAL_EVENT_ID, RUN_EVENT_ID } from './live/sse.js';
import {
  AgentList,
  Me,
  ApprovalDetail,
  ApprovalList,
  ApprovalListQuery,
  CancelAccepted,
  CodecPayloads,
  RunControlAccepted,
  RunControlBody,
  StandingRevokeAccepted,
  DecisionApplied,
  DecisionSubmitted,
  EditPreview,
  EditPreviewRequest,
  OutputRef,
  RunCreated,
  RunDetail,
  RunList,
  RunListQuery,
} from './schemas.js';

/** Every schema of the document, by component name: the very ones the routes validate with. */
const COMPONENTS = {
  JsonValue,
  JsonObject,
  // Recursive schemas need names of their own to be referenced.
  Condition,
  PolicyRule,
  ApprovalPolicy,
  StartRunRequest,
  RunCreated,
  RunSummary,
  RunList,
  RunState,
  RunDetail,
  CancelAccepted,
  RunControlBody,
  RunControlAccepted,
  StandingRevokeAccepted,
  RunEvent,
  ApprovalView,
  ApprovalList,
  ApprovalDetail,
  Decision,
  DecisionOutcome,
  DecisionApplied,
  DecisionSubmitted,
  EditPreviewRequest,
  EditPreview,
  AgentSpec,
  AgentList,
  Me,
  CodecPayloads,
  Error: ErrorBody,
  ErrorCode: ApiErrorCode,
} satisfies Record<string, z.ZodType>;

type ComponentName = keyof typeof COMPONENTS;

const ref = (name: ComponentName) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: ComponentName, description: string) => ({
  description,
  content: { 'application/json': { schema: ref(name) } },
});
export const error = (description: string) => json('Error', description);
const text = (description: string) => ({
  description,
  content: { 'text/plain': { schema: { type: 'string' } } },
});
/** A JSON `data` field of an event, read with the schema it carries. */
export const jsonData = (schema: Record<string, unknown>) => ({
  type: 'string',
  contentMediaType: 'application/json',
  contentSchema: schema,
});
/**
 * An event stream's `schema` describes one event, as OpenAPI 3.2's `itemSchema` does (and as
 * Schemathesis reads 3.1): `event` is the RunEvent's type, `data` the RunEvent as JSON. A run's own
 * stream ends with an `end` event, whose data is `{ runId }`.
 */
const sse = (description: string, id: RegExp, end: boolean) => {
  const fields = {
    event: { type: 'string' },
    id: { type: 'string', pattern: id.source },
    retry: { type: 'integer' },
  };
  const schema = end
    ? {
        type: 'object',
        properties: { ...fields, data: { type: 'string' } },
        required: ['event', 'data'],
        anyOf: [
          { properties: { event: { not: { const: 'end' } }, data: jsonData(ref('RunEvent')) } },
          {
            properties: {
              event: { const: 'end' },
              data: jsonData({
                type: 'object',
                properties: { runId: { type: 'string' } },
                required: ['runId'],
                additionalProperties: false,
              }),
            },
          },
        ],
      }
    : {
        type: 'object',
        properties: { ...fields, data: jsonData(ref('RunEvent')) },
        required: ['event', 'data'],
      };
  return { description, content: { 'text/event-stream': { schema } } };
};

/** The document's components, as JSON Schema: what a schema accepts (`input`) or what it gives (`output`). */
export function componentSchemas(
  components: Record<string, z.ZodType> = COMPONENTS,
  io: 'input' | 'output' = 'output',
): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(components)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: 'any',
    io,
  });
  // Components are embedded in the document, so their own `$schema`/`$id` would only mislead resolvers.
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _s, $id: _i, ...schema }]) => [id, schema]),
  );
}

function queryParameters(schema: z.ZodObject) {
  return Object.entries(schema.shape).map(([name, field]) => ({
    name,
    in: 'query',
    required: false,
    schema: z.toJSONSchema(field as z.ZodType, { io: 'input', unrepresentable: 'any' }),
  }));
}

/** A parameter's JSON Schema from the zod schema its route validates it with, embedded (no `$schema`). */
function paramSchema(schema: z.ZodType): Record<string, unknown> {
  const json: Record<string, unknown> = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  delete json.$schema;
  return json;
}

export const pathParam = (name: string, description: string, schema?: z.ZodType) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: schema ? paramSchema(schema) : { type: 'string' },
});
const runId = pathParam('runId', 'The run id (its workflow id).');
const trackingId = pathParam('trackingId', 'The approval tracking id, `<runId>.<seq>`.');
/** Where a stream resumes: after this event id of it (none, or empty: from the start). */
const resumeAfter = (id: RegExp) => {
  const schema = { type: 'string', pattern: `^(?:${id.source.slice(1, -1)})?$` };
  return [
    {
      name: 'Last-Event-ID',
      in: 'header',
      required: false,
      schema,
      description: 'Resume after this event id.',
    },
    {
      name: 'after',
      in: 'query',
      required: false,
      schema,
      description: 'Resume after this event id, for a client that cannot set Last-Event-ID; the header wins.',
    },
  ];
};
/** Runs the caller may not read answer as runs that do not exist (see docs/security.md). */
const unreadable = error('No such run, or none the caller may read.');
const pageTokenRefused = error(
  'A `pageToken` this API did not return for this very list (`invalid_page_token`), or one sealed by an API with another signing secret (`signing_secret_mismatch`: every instance must share `COUNTERSIGN_SIGNING_SECRET`): start from the first page.',
);
export const notJson = error('The body was not sent as JSON (`Content-Type: application/json`).');
/** Every state-changing route refuses a browser's request made by another site's page (docs/security.md). */
export const CROSS_SITE =
  'A page of another site had the browser send it (`cross_site_request`): nothing was changed.';
const channelHeader = (description: string) => ({
  name: 'X-Countersign-Channel',
  in: 'header',
  required: false,
  schema: { type: 'string', enum: ['api', 'inbox', 'cli'], default: 'api' },
  description,
});
export const common = {
  '401': error('No valid bearer token.'),
  '503': error(
    "Temporal is unavailable or busy (`temporal_unavailable`: a restart, throttling), or the run's worker did not answer within the API's bound (`worker_not_answering`); retry after the Retry-After seconds.",
  ),
};

/** Both event streams count toward one bound per caller and one per API instance (`eventStreams`). */
export const tooManyStreams = {
  ...error(
    'The caller holds as many open event streams as one caller may, or the API as many as it serves (`too_many_streams`); close one, or retry after the Retry-After seconds.',
  ),
  headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } },
};

/** POST /api/codec/encode and /decode: the remote codec protocol, one direction each. */
const codec = (operationId: string, summary: string, answer: string, refused: string) => ({
  post: {
    operationId,
    summary,
    description:
      "The remote codec protocol of the Temporal Web UI and the `temporal` CLI (`--codec-endpoint <publicUrl>/api/codec`; `<publicUrl>/api/codec/{namespace}` works too). Bytes are base64, as proto3 JSON writes them. For the codec roles (`codecRoles`, `admin` by default). Browsers from `codecCorsOrigins` may call it with credentials; their preflight (`OPTIONS`) is answered 204, any other origin's 403 (`origin_not_allowed`).",
    parameters: [
      {
        name: 'X-Namespace',
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description: "The namespace the payloads are from; another than the API's is a 404.",
      },
    ],
    requestBody: { required: true, content: { 'application/json': { schema: ref('CodecPayloads') } } },
    responses: {
      '200': json('CodecPayloads', answer),
      '400': error(refused),
      '403': error('The caller holds none of the codec roles (`role_not_allowed`).'),
      '404': error(
        'The API was given no payloadCodec (`no_payload_codec`), or the payloads are of another namespace.',
      ),
      '413': error('The body is over 8 MB.'),
      '415': notJson,
      ...common,
    },
  },
  options: {
    operationId: `${operationId}Preflight`,
    summary: "A browser's CORS preflight",
    security: [],
    parameters: [
      {
        name: 'Origin',
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description: 'The page asking; only those of `codecCorsOrigins` may call the endpoint.',
      },
    ],
    responses: {
      '204': {
        description:
          'Allowed (no Origin, or one of `codecCorsOrigins`, which also gets the `Access-Control-Allow-*` headers).',
        headers: { Allow: { schema: { type: 'string' }, description: '`POST, OPTIONS`.' } },
      },
      '403': error('An Origin not in `codecCorsOrigins` (`origin_not_allowed`).'),
    },
  },
});

/** POST /pause and /resume: the same shape, another verb. */
const runControl = (operationId: string, summary: string, accepted: string, conflict: string) => ({
  post: {
    operationId,
    summary,
    parameters: [runId, channelHeader('Where the request comes from, for the audit trail.')],
    requestBody: { required: false, content: { 'application/json': { schema: ref('RunControlBody') } } },
    responses: {
      '202': json('RunControlAccepted', accepted),
      '403': error(CROSS_SITE),
      '400': error('Invalid body or X-Countersign-Channel.'),
      '404': unreadable,
      '409': error(conflict),
      '415': notJson,
      ...common,
    },
  },
});

/** POST /slack/interactions: mounted, and so in the document, only when the router has a `slack` option. */
const slackInteractions = {
  post: {
    operationId: 'slackInteraction',
    summary: "The Slack app's interactivity URL: the buttons and modals of Countersign's Slack cards",
    description:
      "Served when the router has a `slack` option. Slack signs each request (`v0=` and the hex HMAC-SHA256, with the app's signing secret, of `v0:<timestamp>:<body as sent>`); one it did not sign within five minutes of now is refused before its body is read. No bearer token: the Slack user who clicked is mapped to an approver and decides under the same rules as every channel. Slack is answered at once and the decision taken after; a refusal is shown to the clicker alone, in Slack.",
    security: [],
    parameters: [
      {
        name: 'X-Slack-Request-Timestamp',
        in: 'header',
        required: true,
        schema: { type: 'string', pattern: '^[0-9]{1,12}$' },
        description: 'When Slack sent the request, in Unix seconds.',
      },
      {
        name: 'X-Slack-Signature',
        in: 'header',
        required: true,
        schema: { type: 'string', pattern: '^v0=[0-9a-f]{64}$' },
        description: "Slack's signature of the timestamp and the body.",
      },
    ],
    requestBody: {
      required: true,
      content: {
        'application/x-www-form-urlencoded': {
          schema: {
            type: 'object',
            properties: {
              payload: {
                type: 'string',
                contentMediaType: 'application/json',
                description:
                  'The interaction, as JSON: `block_actions` (a button) or `view_submission` (a modal); any other type is acknowledged and does nothing.',
              },
            },
            required: ['payload'],
          },
        },
      },
    },
    responses: {
      '200': {
        description:
          "Taken, with an empty body: the decision follows. Or, for an Edit form with values the tool's schema refuses, Slack's `response_action: errors`, shown in the form.",
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: {
                response_action: { const: 'errors' },
                errors: {
                  type: 'object',
                  additionalProperties: { type: 'string' },
                  description: "Each message under its input's block id.",
                },
              },
              required: ['response_action', 'errors'],
            },
          },
        },
      },
      '400': error('Signed, but not a form with the JSON `payload` of an interaction (`invalid_request`).'),
      '401': error(
        "Not signed with the Slack app's signing secret, or signed more than five minutes from now (`slack_signature_invalid`): nothing was read.",
      ),
      '413': error('The body is over 1 MB (`too_large`).'),
    },
  },
};

/**
 * The OpenAPI 3.1 document, derived from the zod schemas the API validates with: the routes of a
 * router with these options (`slack`: it serves Slack's interactions).
 */
export function openApiDocument(
  publicUrl: string,
  options: { slack?: boolean } = {},
): Record<string, unknown> {
  return withIdentityRefusal({
    openapi: '3.1.0',
    info: {
      title: 'Countersign API',
      version: '0.1.0',
      description:
        'Agents act; humans countersign. Runs, approvals, decisions and live events. A method a path does not list here is answered 405 (`method_not_allowed`) with `Allow`.',
    },
    servers: [{ url: publicUrl }],
    security: [{ bearer: [] }],
    paths: {
      '/api/runs': {
        post: {
          operationId: 'startRun',
          summary: 'Start a run',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('StartRunRequest') } },
          },
          responses: {
            '201': json('RunCreated', 'Started.'),
            '403': error(
              `Only an admin may start a run on behalf of someone else (\`role_not_allowed\`). ${CROSS_SITE}`,
            ),
            '415': notJson,
            '400': error(
              `Invalid body (code \`too_deep\` when it nests more than ${MAX_JSON_DEPTH} levels).`,
            ),
            '422': error('No agent of that name runs here (`unknown_agent`); `fields` names the known ones.'),
            ...common,
          },
        },
        get: {
          operationId: 'listRuns',
          summary: 'List the runs the caller may read',
          parameters: queryParameters(RunListQuery),
          responses: {
            '200': json('RunList', 'Runs: open ones first, then the latest ended.'),
            '400': error('Invalid filter.'),
            '422': pageTokenRefused,
            ...common,
          },
        },
      },
      '/api/runs/{runId}': {
        get: {
          operationId: 'getRun',
          summary: 'Show a run: status, transcript, pending approvals, audit trail, output',
          parameters: [runId],
          responses: { '200': json('RunDetail', 'The run.'), '404': unreadable, ...common },
        },
      },
      '/api/runs/{runId}/cancel': {
        post: {
          operationId: 'cancelRun',
          summary:
            'Cancel a run; its pending approvals settle as cancelled, by the caller. Whoever may read a run may cancel it.',
          parameters: [runId, channelHeader('Where the cancellation comes from, for the audit trail.')],
          responses: {
            '202': json('CancelAccepted', 'Cancellation requested.'),
            '403': error(CROSS_SITE),
            '400': error('Invalid X-Countersign-Channel.'),
            '404': unreadable,
            '409': error('The run has already ended.'),
            ...common,
          },
        },
      },
      '/api/runs/{runId}/pause': runControl(
        'pauseRun',
        'Pause a run at its next step boundary (before its next model call or tool call; a running tool finishes). Its approvals stay decidable. Whoever may cancel a run may pause it.',
        'Pause requested.',
        'The run has ended, or is already paused.',
      ),
      '/api/runs/{runId}/resume': runControl(
        'resumeRun',
        'Resume a paused run; `message` reaches the model as a user message before its next model call (a call already decided or automatic runs first). A run paused at its final answer answers again with the message, or finishes without one.',
        'Resume requested.',
        'The run has ended, or is not paused.',
      ),
      '/api/runs/{runId}/standing/{trackingId}/revoke': {
        post: {
          operationId: 'revokeStanding',
          summary:
            "End a standing approval of the run (the run state's `standing`, by the tracking id of the approval that gave it): later calls like its call ask again. Whoever holds a role that approval asked for may revoke it.",
          parameters: [
            runId,
            trackingId,
            channelHeader('Where the revocation comes from, for the audit trail.'),
          ],
          responses: {
            '202': json('StandingRevokeAccepted', 'Revocation signalled; the run records it.'),
            '400': error('Invalid X-Countersign-Channel.'),
            '403': error(
              `The caller holds none of the roles the approval asked for (\`role_not_allowed\`). ${CROSS_SITE}`,
            ),
            '404': error(
              'No such run (or none the caller may read), or no standing approval by that tracking id in it.',
            ),
            '409': error(
              'The run has ended (`run_closed`), or the standing approval has already ended (`standing_ended`: expired, used up, revoked).',
            ),
            '415': notJson,
            ...common,
          },
        },
      },
      '/api/runs/{runId}/events': {
        get: {
          operationId: 'streamRunEvents',
          summary: "A run's events as server-sent events (ids are RunEvent ids)",
          parameters: [runId, ...resumeAfter(RUN_EVENT_ID)],
          responses: {
            '200': sse('RunEvent per message, then `end` once the run has ended.', RUN_EVENT_ID, true),
            '204': { description: 'The run has ended and nothing is left.' },
            '400': error('Last-Event-ID is not an event id of this run.'),
            '404': unreadable,
            '429': tooManyStreams,
            ...common,
          },
        },
      },
      '/api/runs/{runId}/outputs/{ref}': {
        get: {
          operationId: 'getRunOutput',
          summary:
            'A tool output the workers kept in the content store, whole, as text. Whoever may read the run may read it, under a reference its own worker wrote (listed in the run `storedOutputs`), named by a tool message `{"$countersign":"stored-output","ref":…,"bytes":…}`. Text of that shape from anywhere else (a tool output, an answer a person gave) is only text.',
          parameters: [
            runId,
            pathParam('ref', 'The `ref` of the stored-output marker in the transcript.', OutputRef),
          ],
          responses: {
            '200': text('The output, UTF-8.'),
            '400': error('Not a content reference.'),
            '404': error(
              'No such run, or none the caller may read; no output its worker stored under that reference; or (code `no_content_store`) the API was given no content store.',
            ),
            '502': error(
              "The content store failed to return the output (code `content_store_failed`); or (code `content_store_mismatch`) the output was kept in another content store than this API's, whose id the message names with this store's: every worker and API must share one.",
            ),
            ...common,
          },
        },
      },
      '/api/events': {
        get: {
          operationId: 'streamEvents',
          summary: 'The events of every run the caller may read, as server-sent events',
          parameters: resumeAfter(GLOBAL_EVENT_ID),
          responses: {
            '200': sse('RunEvent per message.', GLOBAL_EVENT_ID, false),
            '400': error('Last-Event-ID is not an event id of this stream.'),
            '429': tooManyStreams,
            ...common,
          },
        },
      },
      '/api/approvals': {
        get: {
          operationId: 'listApprovals',
          summary: 'List approvals',
          parameters: queryParameters(ApprovalListQuery),
          responses: {
            '200': json('ApprovalList', 'Approvals.'),
            '400': error('Invalid filter.'),
            '422': pageTokenRefused,
            ...common,
          },
        },
      },
      '/api/approvals/{trackingId}': {
        get: {
          operationId: 'getApproval',
          summary: 'Show an approval with its decisions',
          parameters: [trackingId],
          responses: {
            '200': {
              ...json('ApprovalDetail', 'The approval.'),
              headers: {
                ETag: {
                  description: "The proposal's revision, quoted: send it back in If-Match with a decision.",
                  schema: { type: 'string' },
                },
              },
            },
            '404': error('No such approval.'),
            ...common,
          },
        },
      },
      '/api/approvals/{trackingId}/decision': {
        post: {
          operationId: 'decideApproval',
          summary: 'Decide an approval',
          parameters: [
            trackingId,
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              schema: { type: 'string', maxLength: 200 },
              description:
                'A retry with the same key gets the first answer; the same key with another request is a 422.',
            },
            {
              name: 'If-Match',
              in: 'header',
              required: true,
              schema: { type: 'string', pattern: '^"[1-9][0-9]{0,8}"$' },
              description:
                'The ETag of the approval as the approver was shown it: the decision covers exactly that revision.',
            },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: ref('Decision') } } },
          responses: {
            '200': json('DecisionApplied', 'The workflow took the decision.'),
            '202': json('DecisionSubmitted', 'Sent; poll the location for the outcome.'),
            '400': error('Invalid body, decision not allowed, or invalid arguments (field errors).'),
            '403': error(`The approver may not decide this approval. ${CROSS_SITE}`),
            '404': error('No such approval, or none of a run the caller may read.'),
            '409': error('Already settled, or already approved by this approver.'),
            '415': notJson,
            '412': error(
              'The proposal changed since the approver was shown it; `error.current` is the approval as it is now. Nothing was changed.',
            ),
            '422': error('This Idempotency-Key was already used for another request.'),
            '428': error('No If-Match: a decision must name the revision it was made on.'),
            '501': error(
              'A `secret`, and this API holds no secret keys to seal it with (`secret_input_unavailable`).',
            ),
            ...common,
          },
        },
      },
      '/api/approvals/{trackingId}/preview': {
        post: {
          operationId: 'previewEdit',
          summary:
            'What an edit would ask for were it sent now, judged by the run and changing nothing: the requirements with the tier the edited arguments (or plan) move into, and warnings for those no approver can meet',
          parameters: [trackingId],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('EditPreviewRequest') } },
          },
          responses: {
            '200': json('EditPreview', 'What the edit would ask for.'),
            '400': error(
              'Invalid body, edit not allowed, invalid arguments (field errors), or an edit the policy refuses (`policy_denied`).',
            ),
            '403': error(CROSS_SITE),
            '404': error('No such approval, or none of a run the caller may read.'),
            '409': error('Already settled.'),
            '415': notJson,
            ...common,
          },
        },
      },
      '/api/approvals/{trackingId}/decisions/{requestId}': {
        get: {
          operationId: 'getDecisionOutcome',
          summary: 'The outcome of a submitted decision',
          parameters: [trackingId, pathParam('requestId', 'From the 202 answer.')],
          responses: {
            '200': json('DecisionApplied', 'Taken.'),
            '202': json('DecisionSubmitted', 'Not taken yet.'),
            '400': error('Refused.'),
            '403': error('Refused.'),
            '404': error('No such approval.'),
            '409': error('Refused.'),
            '412': error('Refused: the proposal changed before the decision reached it (`stale_revision`).'),
            ...common,
          },
        },
      },
      '/api/agents': {
        get: {
          operationId: 'listAgents',
          summary: 'Agents, their tools, schemas and policies',
          responses: { '200': json('AgentList', 'Agents.'), ...common },
        },
      },
      '/api/codec/decode': codec(
        'decodePayloads',
        "Decrypt payloads with the API's payload codec (payloads it did not encrypt come back as sent)",
        'The payloads, decoded.',
        'Invalid body, or a payload the codec refuses (`decode_failed`: a key it does not hold, altered data).',
      ),
      '/api/codec/encode': codec(
        'encodePayloads',
        "Encrypt payloads with the API's payload codec, with its current key",
        'The payloads, encoded.',
        'Invalid body, or a payload the codec refuses (`encode_failed`).',
      ),
      '/api/me': {
        get: {
          operationId: 'getMe',
          summary: 'The approver this token names',
          responses: { '200': json('Me', 'The caller.'), ...common },
        },
      },
      '/api/openapi.json': {
        get: {
          operationId: 'getOpenApiDocument',
          summary: 'This document',
          security: [],
          responses: { '200': { description: 'OpenAPI 3.1.' } },
        },
      },
      ...(options.slack ? { '/slack/interactions': slackInteractions } : {}),
    },
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: "An approver's token from the approvers file.",
        },
      },
      schemas: componentSchemas(),
    },
  });
}

/** Every route that names its caller refuses an identity the protocol cannot carry (api/identity.ts). */
const IDENTITY_REFUSED =
  "`identity_not_supported`: the identity the host's `authenticate` gave breaks the approver rules (a backslash or control character in the id or a role, either over 200 characters, over 50 roles); the message names the rule.";

type Operation = { security?: unknown[]; responses: Record<string, { description: string }> };

export function withIdentityRefusal<T extends { paths: Record<string, Record<string, unknown>> }>(
  document: T,
): T {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as Operation[]) {
      if (operation.security?.length === 0) continue;
      const forbidden = operation.responses['403'];
      operation.responses['403'] = forbidden
        ? { ...forbidden, description: `${forbidden.description} Or ${IDENTITY_REFUSED}` }
        : error(`The caller's identity: ${IDENTITY_REFUSED}`);
    }
  }
  return document;
}
