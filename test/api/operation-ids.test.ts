import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chatOpenApiDocument } from '../../api/chat/chat-openapi.js';
import { openApiDocument } from '../../api/openapi.js';

/** The HTTP methods an OpenAPI path item can hold an operation under. */
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type Paths = Record<string, Record<string, { operationId?: unknown }>>;

/** Each operation's id, by `METHOD path`, once it is checked to be a method name of its own. */
function operationIds(document: Record<string, unknown>): Map<string, string> {
  const ids = new Map<string, string>();
  for (const [path, item] of Object.entries(document.paths as Paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const name = `${method.toUpperCase()} ${path}`;
      assert.equal(typeof operation.operationId, 'string', `${name} has an operationId`);
      // Generated clients make method names of them.
      assert.match(operation.operationId as string, /^[a-z][A-Za-z]*$/, name);
      ids.set(name, operation.operationId as string);
    }
  }
  const all = [...ids.values()];
  assert.deepEqual(
    all.filter((id, index) => all.indexOf(id) !== index),
    [],
    'no operationId is used twice',
  );
  return ids;
}

test('every operation of the OpenAPI document has an operationId, none used twice', () => {
  const ids = operationIds(openApiDocument('http://localhost'));
  assert.ok(ids.size >= 20, `${ids.size} operations`);
  assert.equal(ids.has('POST /slack/interactions'), false, 'no Slack endpoint without Slack');
  // With Slack, its endpoint too, under an id no other operation has.
  const withSlack = operationIds(openApiDocument('http://localhost', { slack: true }));
  assert.equal(withSlack.get('POST /slack/interactions'), 'slackInteraction');
  assert.equal(withSlack.size, ids.size + 1);
});

test("the chat router's document names each of its operations, with ids that stay as they are", () => {
  const chat = operationIds(chatOpenApiDocument());
  assert.deepEqual(Object.fromEntries(chat), {
    'POST /': 'streamChat',
    'GET /{chatId}/stream': 'resumeChatStream',
    'POST /ag-ui': 'runAgUiAgent',
    'GET /openapi.json': 'getChatOpenApiDocument',
  });
  // A client generated from both documents has no method twice.
  const main = [...operationIds(openApiDocument('http://localhost', { slack: true })).values()];
  assert.deepEqual(
    [...chat.values()].filter((id) => main.includes(id)),
    [],
  );
});
