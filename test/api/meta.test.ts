import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.close();
});

test('every /api route needs a bearer token: 401 with a JSON error', async () => {
  const routes: [string, string][] = [
    ['GET', '/api/runs'],
    ['POST', '/api/runs'],
    ['GET', '/api/runs/run-x'],
    ['POST', '/api/runs/run-x/cancel'],
    ['GET', '/api/runs/run-x/events'],
    ['GET', `/api/runs/run-x/outputs/sha256:${'0'.repeat(64)}`],
    ['GET', '/api/approvals'],
    ['GET', '/api/approvals/run-x.1'],
    ['POST', '/api/approvals/run-x.1/decision'],
    ['GET', '/api/approvals/run-x.1/decisions/r1'],
    ['GET', '/api/agents'],
    ['GET', '/api/events'],
  ];
  for (const [method, route] of routes) {
    const none = await stack.http(method, route);
    assert.equal(none.status, 401, `${method} ${route} without a token`);
    assert.equal(none.body.error.code, 'unauthorized');
    assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
    const wrong = await stack.http(method, route, { token: 'not-a-token-of-anyone-at-all' });
    assert.equal(wrong.status, 401, `${method} ${route} with an unknown token`);
  }
});

test('GET /api/me names the approver and never echoes the token', async () => {
  const me = await stack.http('GET', '/api/me', { token: tokens.bob });
  assert.equal(me.status, 200);
  assert.deepEqual(me.body.approver.roles, ['treasurer']);
  assert.equal(me.body.approver.id, 'bob');
  assert.ok(!me.text.includes(tokens.bob));
});

test('GET /api/agents lists agents, tools, JSON schemas and policies', async () => {
  const answer = await stack.http('GET', '/api/agents', { token: tokens.alice });
  assert.equal(answer.status, 200);
  const bank = answer.body.agents.find((a: { name: string }) => a.name === 'bank');
  assert.ok(bank);
  const transfer = bank.tools.find((t: { name: string }) => t.name === 'transfer');
  assert.equal(transfer.parameters.type, 'object');
  assert.deepEqual(transfer.parameters.required, ['from', 'to', 'amount']);
  assert.deepEqual(transfer.approval.editableFields, ['amount', 'memo']);
  assert.deepEqual(transfer.approval.approvers, ['admin', 'treasurer']);
  assert.equal(bank.model, 'fake-model');
});

test('GET /api/openapi.json is public and derived from the protocol schemas', async () => {
  const answer = await stack.http('GET', '/api/openapi.json');
  assert.equal(answer.status, 200);
  const doc = answer.body;
  assert.equal(doc.openapi, '3.1.0');
  for (const path of [
    '/api/runs',
    '/api/runs/{runId}',
    '/api/runs/{runId}/cancel',
    '/api/runs/{runId}/events',
    '/api/runs/{runId}/outputs/{ref}',
    '/api/events',
    '/api/approvals',
    '/api/approvals/{trackingId}',
    '/api/approvals/{trackingId}/decision',
    '/api/approvals/{trackingId}/decisions/{requestId}',
    '/api/agents',
    '/api/me',
  ]) {
    assert.ok(doc.paths[path], `documents ${path}`);
  }
  const decision = doc.components.schemas.Decision;
  assert.deepEqual(
    decision.oneOf.map((o: { properties: { type: { const: string } } }) => o.properties.type.const),
    ['approve', 'edit', 'reject', 'respond'],
  );
  assert.ok(doc.paths['/api/approvals/{trackingId}/decision'].post.responses['409']);
  // Every reference resolves inside the document.
  const refs = [...answer.text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
  assert.ok(refs.length > 10);
  for (const name of refs) assert.ok(doc.components.schemas[name], `component ${name} exists`);
});

test('unknown API routes are JSON 404s; the inbox is served at /', async () => {
  const missing = await stack.http('GET', '/api/nothing-here', { token: tokens.alice });
  assert.equal(missing.status, 404);
  assert.equal(typeof missing.body.error.message, 'string');
  const malformed = await stack.http('GET', '/api/runs/%E0%A4%A', { token: tokens.alice });
  assert.equal(malformed.status, 400);
  assert.equal(malformed.body.error.code, 'bad_request');
  const page = await stack.http('GET', '/');
  assert.equal(page.status, 200);
  assert.match(page.text, /<title>Countersign inbox<\/title>/);
  assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/);
});

test('bodies are size-limited and must be JSON', async () => {
  const broken = await stack.http('POST', '/api/runs', {
    token: tokens.alice,
    body: '{"agent": "bank", ',
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(broken.status, 400);
  assert.equal(broken.body.error.code, 'invalid_json');
  const huge = await stack.http('POST', '/api/runs', {
    token: tokens.alice,
    body: { agent: 'bank', input: 'x'.repeat(400_000) },
  });
  assert.equal(huge.status, 413);
  assert.equal(huge.body.error.code, 'too_large');
});

test('a body not sent as JSON is told so, and so is a missing body', async () => {
  const post = (headers: Record<string, string>, body?: string) =>
    fetch(`${stack.url}/api/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.alice}`, ...headers },
      body,
    });
  const body = JSON.stringify({ agent: 'bank', input: 'x' });
  const kinds: Record<string, string>[] = [
    {},
    { 'content-type': 'text/plain' },
    { 'content-type': 'application/x-www-form-urlencoded' },
  ];
  for (const headers of kinds) {
    const answer = await post(headers, body);
    assert.equal(answer.status, 415, JSON.stringify(headers));
    const error = ((await answer.json()) as { error: { code: string; message: string } }).error;
    assert.equal(error.code, 'unsupported_media_type');
    assert.match(error.message, /Content-Type: application\/json/);
    assert.doesNotMatch(error.message, /undefined/);
  }
  const none = await post({});
  assert.equal(none.status, 400);
  const error = ((await none.json()) as { error: { message: string } }).error;
  assert.match(error.message, /needs a JSON body/);
  assert.doesNotMatch(error.message, /undefined/);
});

test('a deeply nested body within the size limit is a 400 that says so, never a 500', async () => {
  const nested = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
  const post = (route: string, body: string) =>
    fetch(`${stack.url}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.alice}`, 'content-type': 'application/json' },
      body,
    });
  const bodies: [string, string][] = [
    // Arguments are any JSON: the decision's validator would follow them all the way down.
    ['/api/approvals/run-x.1/decision', `{"type":"edit","args":{"a":${nested(100_000)}}}`],
    [
      '/api/approvals/run-x.1/decision',
      `{"type":"respond","result":${'{"a":'.repeat(40_000)}1${'}'.repeat(40_000)}}`,
    ],
    ['/api/runs', `{"agent":"bank","input":"x","requester":${nested(100_000)}}`],
    ['/api/runs/run-x/cancel', nested(100_000)],
  ];
  for (const [route, body] of bodies) {
    assert.ok(body.length < 256 * 1024, 'within the size limit');
    const answer = await post(route, body);
    assert.equal(answer.status, 400, `${route}: ${answer.status}`);
    const error = ((await answer.json()) as { error: { code: string; message: string } }).error;
    assert.equal(error.code, 'too_deep');
    assert.equal(error.message, 'request body nests arrays and objects more than 64 levels deep');
  }
  // 64 levels are allowed: such a body goes on to be validated like any other.
  const allowed = await post('/api/approvals/run-x.1/decision', `{"type":"edit","args":{"a":${nested(62)}}}`);
  assert.notEqual(((await allowed.json()) as { error?: { code: string } }).error?.code, 'too_deep');
  const deeper = await post('/api/approvals/run-x.1/decision', `{"type":"edit","args":{"a":${nested(63)}}}`);
  assert.equal(deeper.status, 400);
  assert.equal(((await deeper.json()) as { error: { code: string } }).error.code, 'too_deep');
  const me = await stack.http('GET', '/api/me', { token: tokens.alice });
  assert.equal(me.status, 200, 'and the API goes on answering');
});
