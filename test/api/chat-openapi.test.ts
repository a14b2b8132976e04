import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { chatOpenApiDocument } from '../../api/chat/chat-openapi.js';
import { countersignChat } from '../../api/chat/chat-router.js';
import { AgUiChat } from '../support/ag-ui-chat.js';
import { startChatApp, type ChatApp } from '../support/ai-chat.js';
import { chatPeople, tellerBank } from '../support/chat-agents.js';
import { call, calls, say } from '../support/fake-model.js';
import { schemaViolations } from '../support/schema-violations.js';
import { startStack, type Stack } from '../support/stack.js';

/** countersignChat answers as the OpenAPI document it serves says, streams included. */

interface Response {
  headers?: Record<string, { required?: boolean }>;
  content?: Record<string, { schema: unknown }>;
}
type Operation = { responses: Record<string, Response> };
type Document = {
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: object };
};

let stack: Stack;
let app: ChatApp;
let document: Document;
before(async () => {
  stack = await startStack({ agents: [tellerBank] });
  app = await startChatApp(stack, [tellerBank], 'teller_bank', chatPeople);
  document = (await (await fetch(`${app.url}/chat/openapi.json`)).json()) as Document;
});
after(async () => {
  await app?.close();
  await stack?.close();
});

/** Where a value breaks a schema of the document ([] when it fits). */
const violations = (schema: unknown, value: unknown) => schemaViolations(document, schema, value);

function declared(path: string, method: string, status: number): Response {
  const response = document.paths[path]?.[method]?.responses[String(status)];
  assert.ok(response, `the document declares ${status} for ${method.toUpperCase()} ${path}`);
  return response;
}

/** The JSON body `status` answers for `method path` fits the schema the document declares for it. */
function assertDeclared(path: string, method: string, status: number, body: unknown): void {
  const schema = declared(path, method, status).content?.['application/json']?.schema;
  assert.ok(schema, `${status} of ${method.toUpperCase()} ${path} has a JSON schema`);
  assert.deepEqual(violations(schema, body), [], JSON.stringify(body));
}

/**
 * A schema of one event with its JSON `data` read as the document says (`contentMediaType` with
 * `contentSchema`, which the validator does not apply itself): the data parsed, the schema inlined.
 */
function readJsonData(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(readJsonData);
  if (typeof schema !== 'object' || schema === null) return schema;
  const node = schema as Record<string, unknown>;
  if (node.contentMediaType === 'application/json') return readJsonData(node.contentSchema);
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, readJsonData(value)]));
}

/** Each event of a 200 stream fits the event schema the document declares for it. */
function assertEvents(path: string, method: string, events: { data: string }[]): void {
  const schema = declared(path, method, 200).content?.['text/event-stream']?.schema;
  assert.ok(schema, `200 of ${method.toUpperCase()} ${path} is an event stream`);
  const read = readJsonData(schema);
  for (const event of events) {
    let data: unknown = event.data;
    try {
      data = JSON.parse(event.data);
    } catch {
      // Not JSON (the UI message stream's closing `[DONE]`): the schema says what it may be.
    }
    assert.deepEqual(violations(read, { ...event, data }), [], event.data);
  }
}

/** The `data` of each event of a stream, read until `done` says so (then the stream is closed) or it ends. */
async function readEvents(
  response: globalThis.Response,
  done: (data: string) => boolean = () => false,
): Promise<{ data: string }[]> {
  const events: { data: string }[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) return events;
    buffer += chunk.value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const lines = buffer.slice(0, end).split('\n');
      buffer = buffer.slice(end + 2);
      const data = lines.filter((line) => line.startsWith('data: ')).map((line) => line.slice(6));
      if (data.length === 0) continue;
      events.push({ data: data.join('\n') });
      if (done(events.at(-1)!.data)) {
        await reader.cancel();
        return events;
      }
    }
  }
}

const typesOf = (events: { data: string }[]) =>
  events.map(({ data }) => (data === '[DONE]' ? data : (JSON.parse(data) as { type: string }).type));

const userMessage = (text: string) => ({ id: randomUUID(), role: 'user', parts: [{ type: 'text', text }] });
/** The assistant message of a turn as the client holds it, with the approval answered. */
const answered = (runId: string, approvalId: string, approved: boolean) => ({
  id: runId,
  role: 'assistant',
  parts: [
    { type: 'step-start' },
    {
      type: 'tool-transfer',
      toolCallId: 'c1',
      state: 'approval-responded',
      approval: { id: approvalId, approved },
    },
  ],
});

/** Any method, TRACE included (fetch refuses it), with no credentials. */
function send(method: string, path: string): Promise<{ status: number; allow: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(app.url + path, { method }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, allow: res.headers.allow ?? '', body }));
    });
    req.on('error', reject).end();
  });
}

test('the chat router serves its document to anyone, with its mount as the server', async () => {
  // No credentials: the document is public, as the REST API's is.
  const answer = await fetch(`${app.url}/chat/openapi.json`);
  assert.equal(answer.status, 200);
  assert.deepEqual(await answer.json(), {
    ...JSON.parse(JSON.stringify(chatOpenApiDocument())),
    servers: [{ url: '/chat' }],
  });
});

test('every route the chat router serves is in its document, and every documented operation is one', () => {
  const router = countersignChat({
    client: stack.client,
    taskQueue: stack.taskQueue,
    agents: [tellerBank],
    agent: 'teller_bank',
    signingSecret: stack.signingSecret,
    publicUrl: app.url,
    authenticate: () => undefined,
  }) as unknown as { stack: { route?: { path: string; methods: Record<string, boolean> } }[] };
  const served = router.stack.flatMap(({ route }) =>
    route
      ? Object.keys(route.methods).map(
          (method) => `${method.toUpperCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}`,
        )
      : [],
  );
  const documented = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
  );
  assert.deepEqual(new Set(served), new Set(documented));
  assert.equal(served.length, 4);
});

test('a method a documented path does not list is a 405 with the Allow of those it does', async () => {
  for (const [path, operations] of Object.entries(document.paths)) {
    const route = `/chat${path.replace(/\{[^}]+\}/g, 'x')}`;
    const declaredMethods = Object.keys(operations).map((m) => m.toUpperCase());
    const allowed = new Set([...declaredMethods, ...(declaredMethods.includes('GET') ? ['HEAD'] : [])]);
    for (const method of ['PUT', 'PATCH', 'DELETE', 'TRACE', 'OPTIONS', 'POST', 'GET']) {
      if (allowed.has(method)) continue;
      // Before authentication: the document is public, and so is what it says.
      const answer = await send(method, route);
      assert.equal(answer.status, 405, `${method} ${route}`);
      assert.deepEqual(new Set(answer.allow.split(/,\s*/)), allowed, `Allow of ${method} ${route}`);
      const body = JSON.parse(answer.body) as { error: { code: string } };
      assert.equal(body.error.code, 'method_not_allowed');
      assert.deepEqual(violations({ $ref: '#/components/schemas/Error' }, body), []);
    }
  }
});

test('a turn, its answer and its resumption stream UI message chunks as the document describes them', async () => {
  const chatId = randomUUID();
  const runId = `chat-${chatId}-1`;
  const input = 'chat document: send 500';
  stack.fake.script(input, calls(call('transfer', { to: 'ann', amount: 500 }, 'c1')), say('Sent 500.'));
  const first = await app.post('sam', { id: chatId, messages: [userMessage(input)] });
  assert.equal(first.status, 200);
  assert.equal(first.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
  const asked = await readEvents(first);
  assertEvents('/', 'post', asked);
  // Which kinds came, whatever the order (the run's part may come before the approval's or after).
  const kinds = [
    'tool-approval-request',
    'data-countersign-approval',
    'data-countersign-run',
    'finish',
    '[DONE]',
  ];
  assert.deepEqual(
    [...new Set(typesOf(asked))].filter((type) => kinds.includes(type)).sort(),
    [...kinds].sort(),
  );
  assert.deepEqual(typesOf(asked).slice(-2), ['finish', '[DONE]']);

  const answer = await app.post('sam', {
    id: chatId,
    messages: [userMessage(input), answered(runId, `${runId}.1@1`, true)],
  });
  assert.equal(answer.status, 200);
  const ran = await readEvents(answer);
  assertEvents('/', 'post', ran);
  assert.ok(typesOf(ran).includes('tool-output-available'), typesOf(ran).join());
  assert.ok(typesOf(ran).includes('text-delta'));

  const resumed = await fetch(`${app.url}/chat/${chatId}/stream`, {
    headers: { authorization: 'Bearer sam' },
  });
  assert.equal(resumed.status, 200);
  const replay = await readEvents(resumed);
  assertEvents('/{chatId}/stream', 'get', replay);
  assert.equal(typesOf(replay).at(-1), '[DONE]');

  const none = await fetch(`${app.url}/chat/${randomUUID()}/stream`, {
    headers: { authorization: 'Bearer sam' },
  });
  assert.equal(none.status, 204);
  declared('/{chatId}/stream', 'get', 204);
});

test('a call waiting for another role, and an answer the rules refuse, are described too', async () => {
  const chatId = randomUUID();
  const runId = `chat-${chatId}-1`;
  const input = 'chat document: send 20000';
  stack.fake.script(input, calls(call('transfer', { to: 'ann', amount: 20_000 }, 'c1')), say('Sent.'));
  const waitingPart = (data: string) => data.includes('"state":"waiting"');
  try {
    const first = await app.post('sam', { id: chatId, messages: [userMessage(input)] });
    const waiting = await readEvents(first, waitingPart);
    assert.ok(waitingPart(waiting.at(-1)!.data), 'the call waits for a treasurer');
    assertEvents('/', 'post', waiting);
    // Sam is no treasurer: his approval is refused in the stream, with its code.
    const refused = await app.post('sam', {
      id: chatId,
      messages: [userMessage(input), answered(runId, `${runId}.1@1`, true)],
    });
    const events = await readEvents(refused, (data) => data.includes('data-countersign-refused'));
    assertEvents('/', 'post', events);
    const part = JSON.parse(events.at(-1)!.data) as { data: { code: string } };
    assert.equal(part.data.code, 'role_not_allowed');
  } finally {
    await stack.client.workflow.getHandle(runId).terminate('the test is done with it');
  }
});

test('AG-UI runs (an interrupt, its resume, a body refused) stream events as the document describes them', async () => {
  const threadId = randomUUID();
  const input = 'chat document: ag-ui 300';
  stack.fake.script(input, calls(call('transfer', { to: 'ann', amount: 300 }, 'c1')), say('Sent 300.'));
  const chat = new AgUiChat(app.url, threadId, 'sam');
  const ending = await chat.say(input);
  assert.equal(ending.outcome, 'interrupt');
  const resumed = await chat.run(
    ending.outcome === 'interrupt'
      ? [{ interruptId: ending.interrupts[0]!.id, status: 'resolved', payload: { approved: true } }]
      : [],
  );
  assert.equal(resumed.outcome, 'success');
  const events = await chat.checkWire();
  assertEvents(
    '/ag-ui',
    'post',
    events.map((event) => ({ data: JSON.stringify(event) })),
  );
  const types = new Set(events.map((event) => event.type));
  for (const type of ['RUN_STARTED', 'TOOL_CALL_START', 'TOOL_CALL_RESULT', 'STATE_SNAPSHOT', 'RUN_FINISHED'])
    assert.ok(types.has(type), type);

  // As AG-UI has it, a body the agent cannot take ends the run with an error, in the stream.
  const refused = await fetch(`${app.url}/chat/ag-ui`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sam' },
    body: JSON.stringify({ threadId, runId: 'r1', messages: [] }),
  });
  assert.equal(refused.status, 200);
  const error = await readEvents(refused);
  assertEvents('/ag-ui', 'post', error);
  assert.equal((JSON.parse(error.at(-1)!.data) as { code: string }).code, 'invalid_request');
});

test('the refusals a chat request meets before its stream have the bodies the document declares', async () => {
  const post = (path: string, body: string, headers: Record<string, string>) =>
    fetch(`${app.url}/chat${path}`, { method: 'POST', headers, body });
  const json = { 'content-type': 'application/json' };
  const sam = { ...json, authorization: 'Bearer sam' };
  const chat = (chatId: string, ...texts: string[]) =>
    JSON.stringify({ id: chatId, messages: texts.map(userMessage) });
  const cases: [string, globalThis.Response, number, string][] = [
    ['/', await post('', chat(randomUUID(), 'hello'), json), 401, 'unauthorized'],
    ['/', await post('', chat('not a chat id', 'hello'), sam), 400, 'invalid_request'],
    ['/', await post('', '{', sam), 400, 'invalid_json'],
    ['/', await post('', 'hello', { ...sam, 'content-type': 'text/plain' }), 415, 'unsupported_media_type'],
    ['/', await post('', chat(randomUUID(), 'one', 'two'), sam), 409, 'chat_turn_missing'],
    [
      '/',
      await post('', chat(randomUUID(), 'hi'), { ...sam, origin: 'https://elsewhere.example' }),
      403,
      'cross_site_request',
    ],
    ['/ag-ui', await post('/ag-ui', '{', sam), 400, 'invalid_json'],
    ['/ag-ui', await post('/ag-ui', '{}', json), 401, 'unauthorized'],
  ];
  for (const [path, answer, status, code] of cases) {
    const body = (await answer.json()) as { error: { code: string } };
    assert.equal(answer.status, status, `${path}: ${JSON.stringify(body)}`);
    assert.equal(body.error.code, code);
    assertDeclared(path, 'post', status, body);
  }
  const stream = await fetch(`${app.url}/chat/not%20a%20chat/stream`, {
    headers: { authorization: 'Bearer sam' },
  });
  assert.equal(stream.status, 400);
  assertDeclared('/{chatId}/stream', 'get', 400, await stream.json());
});
