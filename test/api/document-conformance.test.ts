import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import { Client, Connection } from '@temporalio/client';
import { createApi } from '../../api/create-api.js';
import { call, calls, say } from '../support/fake-model.js';
import { apiTestAgents, testApprovers, tokens } from '../support/api-agents.js';
import { schemaViolations } from '../support/schema-violations.js';
import { startStack, type Stack } from '../support/stack.js';
import { sendInteraction } from '../slack/fake-slack.js';

/** The API answers as its OpenAPI document says (`npm run test:schema` fuzzes the same, at length). */

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
  requestBody?: { content: Record<string, { schema: unknown }> };
}
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: object } };

let stack: Stack;
let document: Document;
before(async () => {
  stack = await startStack();
  document = (await stack.http('GET', '/api/openapi.json')).body;
});
after(async () => {
  await stack?.close();
});

/** Where a value breaks a schema of the document ([] when it fits). */
const violations = (schema: unknown, value: unknown) => schemaViolations(document, schema, value);

/** The body `status` answers for `method path` must fit the schema the document declares for it. */
function assertDeclared(path: string, method: string, status: number, body: unknown): void {
  const response = document.paths[path]?.[method]?.responses[String(status)];
  assert.ok(response, `the document declares ${status} for ${method.toUpperCase()} ${path}`);
  const schema = response.content?.['application/json']?.schema;
  assert.ok(schema, `${status} of ${method.toUpperCase()} ${path} has a JSON schema`);
  assert.deepEqual(violations(schema, body), [], JSON.stringify(body));
}

/** Any method, TRACE included (fetch refuses it), with no credentials. */
function send(method: string, path: string): Promise<{ status: number; allow: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(stack.url + path, { method }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, allow: res.headers.allow ?? '', body }));
    });
    req.on('error', reject).end();
  });
}

/** A bank run Victor asked for, waiting on one transfer that Alice (admin) may approve. */
async function waitingTransfer(input: string) {
  const proposal = { from: 'ops', to: 'acme', amount: 1500, memo: 'invoice 7' };
  const runId = await stack.startRun(
    'bank',
    input,
    tokens.victor,
    calls(call('transfer', proposal)),
    say('Done.'),
  );
  const [pending] = await stack.waitForPending(runId);
  return { runId, trackingId: pending!.trackingId };
}

test('a method a documented path does not list is a 405 with the Allow of those it does', async () => {
  for (const [path, operations] of Object.entries(document.paths)) {
    const route = path.replace(/\{[^}]+\}/g, 'x');
    const declared = Object.keys(operations).map((m) => m.toUpperCase());
    const allowed = new Set([...declared, ...(declared.includes('GET') ? ['HEAD'] : [])]);
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
  // What the document lists still reaches its route: the codec's CORS preflight, HEAD beside GET.
  assert.equal((await fetch(`${stack.url}/api/codec/decode`, { method: 'OPTIONS' })).status, 204);
  const head = await fetch(`${stack.url}/api/me`, {
    method: 'HEAD',
    headers: { authorization: `Bearer ${tokens.alice}` },
  });
  assert.equal(head.status, 200);
  assert.equal((await stack.http('GET', '/api/nothing-here', { token: tokens.alice })).status, 404);
});

test('a decision on a settled approval is a 409 whose body the document declares', async () => {
  const { trackingId } = await waitingTransfer('document: settled');
  const route = `/api/approvals/${trackingId}/decision`;
  const first = await stack.http('POST', route, { token: tokens.alice, body: { type: 'approve' } });
  assert.equal(first.status, 200, first.text);
  const late = await stack.http('POST', route, { token: tokens.alice, body: { type: 'approve' } });
  assert.equal(late.status, 409);
  assert.equal(late.body.error.code, 'already_settled');
  assert.equal(late.body.error.status, 'approved');
  assertDeclared('/api/approvals/{trackingId}/decision', 'post', 409, late.body);
});

test('the bodies of other refusals that carry more than a message are declared too', async () => {
  const { trackingId } = await waitingTransfer('document: no revision');
  const route = `/api/approvals/${trackingId}/decision`;
  const unnamed = await stack.http('POST', route, {
    token: tokens.alice,
    body: { type: 'approve' },
    headers: { 'if-match': '' },
  });
  assert.equal(unnamed.status, 428);
  assert.equal(unnamed.body.error.current.trackingId, trackingId);
  assertDeclared('/api/approvals/{trackingId}/decision', 'post', 428, unnamed.body);
  const stale = await stack.http('POST', route, {
    token: tokens.alice,
    body: { type: 'approve' },
    headers: { 'if-match': '"7"' },
  });
  assert.equal(stale.status, 412);
  assertDeclared('/api/approvals/{trackingId}/decision', 'post', 412, stale.body);
});

test('schema-valid requests the API cannot act on have a declared answer', async () => {
  const unknown = await stack.http('POST', '/api/runs', {
    token: tokens.alice,
    body: { agent: 'nobody', input: 'x' },
  });
  assert.equal(unknown.status, 422);
  assert.equal(unknown.body.error.code, 'unknown_agent');
  assert.equal(unknown.body.error.fields[0].path, '/agent');
  assertDeclared('/api/runs', 'post', 422, unknown.body);
  for (const list of ['/api/runs', '/api/approvals']) {
    const forged = await stack.http('GET', `${list}?pageToken=bm90LWEtdG9rZW4`, { token: tokens.alice });
    assert.equal(forged.status, 422, list);
    assert.equal(forged.body.error.code, 'invalid_page_token');
    assertDeclared(list, 'get', 422, forged.body);
  }
  // A respond carries one answer: the document's schema says so, as the API's validation does.
  const decision =
    document.paths['/api/approvals/{trackingId}/decision']!.post!.requestBody!.content['application/json']!
      .schema;
  assert.notDeepEqual(violations(decision, { type: 'respond', result: null, secret: 'hunter2' }), []);
  assert.notDeepEqual(violations(decision, { type: 'respond' }), []);
  assert.deepEqual(violations(decision, { type: 'respond', result: null }), []);
  assert.deepEqual(violations(decision, { type: 'respond', secret: 'hunter2' }), []);
  const both = await stack.http('POST', '/api/approvals/run-x.1/decision', {
    token: tokens.alice,
    body: { type: 'respond', result: null, secret: 'hunter2' },
  });
  assert.equal(both.status, 400);
});

test('a pause or resume of a run that ends before its signal is a 409 run_closed, never a 500', async () => {
  // An API of the test's own, whose first signal finds its run ended: it ends just before it.
  let endFirst: (() => Promise<void>) | undefined;
  const endBeforeSignal: Interceptor = (options, next) =>
    new InterceptingCall(next(options), {
      sendMessage(message, send) {
        const end = endFirst;
        if (!end || !options.method_definition.path.endsWith('/SignalWorkflowExecution'))
          return send(message);
        endFirst = undefined;
        void end().then(() => send(message));
      },
    });
  const connection = await Connection.connect({
    address: stack.temporalAddress,
    interceptors: [endBeforeSignal],
  });
  const server = createApi({
    client: new Client({ connection }),
    taskQueue: stack.taskQueue,
    agents: apiTestAgents,
    approvers: testApprovers,
    signingSecret: stack.signingSecret,
    publicUrl: 'http://127.0.0.1',
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  try {
    for (const action of ['pause', 'resume']) {
      const { runId } = await waitingTransfer(`document: ${action} an ending run`);
      if (action === 'resume') {
        const paused = await stack.http('POST', `/api/runs/${runId}/pause`, { token: tokens.alice });
        assert.equal(paused.status, 202);
        await stack.listUntil(
          `/api/runs?status=paused`,
          tokens.alice,
          (body: { runs: { runId: string }[] }) => body.runs.some((run) => run.runId === runId),
        );
      }
      endFirst = async () => {
        await stack.client.workflow.getHandle(runId).terminate('ends before the signal');
      };
      const answer = await fetch(`http://127.0.0.1:${port}/api/runs/${runId}/${action}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.alice}` },
      });
      const body = (await answer.json()) as { error: { code: string } };
      assert.equal(answer.status, 409, `${action}: ${JSON.stringify(body)}`);
      assert.equal(body.error.code, 'run_closed');
      assert.equal(endFirst, undefined, 'the run ended between the look and the signal');
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
    await connection.close();
  }
});

test('the Slack endpoint is in the document exactly when the router serves it, and its answers are declared', async () => {
  // The stack's API has no Slack: neither the document nor the router has the endpoint.
  assert.equal(document.paths['/slack/interactions'], undefined);
  assert.equal((await send('POST', '/slack/interactions')).status, 404);

  const signingSecret = 'document-slack-signing-secret';
  const server = createApi({
    client: stack.client,
    taskQueue: stack.taskQueue,
    agents: apiTestAgents,
    approvers: testApprovers,
    signingSecret: stack.signingSecret,
    publicUrl: 'http://127.0.0.1',
    slack: { botToken: 'xoxb-document', signingSecret },
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  try {
    const withSlack = (await (await fetch(`${url}/api/openapi.json`)).json()) as Document;
    const post = withSlack.paths['/slack/interactions']?.post;
    assert.ok(post, 'the document of a router with Slack has POST /slack/interactions');
    const assertSlackDeclared = (status: number, body: unknown) => {
      const schema = post.responses[String(status)]?.content?.['application/json']?.schema;
      assert.ok(schema, `POST /slack/interactions declares ${status} with a JSON body`);
      assert.deepEqual(violations(schema, body), [], JSON.stringify(body));
    };

    // Unsigned, signed with another secret, too large: refused before anything is read.
    const unsigned = await fetch(`${url}/slack/interactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'payload=%7B%7D',
    });
    assert.equal(unsigned.status, 401);
    const refused = (await unsigned.json()) as { error: { code: string } };
    assert.equal(refused.error.code, 'slack_signature_invalid');
    assertSlackDeclared(401, refused);
    const forged = await sendInteraction(url, signingSecret, { type: 'shortcut' }, { secret: 'another' });
    assert.equal(forged.status, 401);
    assertSlackDeclared(401, JSON.parse(forged.text));
    const large = await fetch(`${url}/slack/interactions`, { method: 'POST', body: 'x'.repeat(1_100_000) });
    assert.equal(large.status, 413);
    assertSlackDeclared(413, await large.json());
    // Signed: a payload that is no interaction, and one of a type it leaves alone.
    const malformed = await sendInteraction(url, signingSecret, { type: 'block_actions' });
    assert.equal(malformed.status, 400);
    assertSlackDeclared(400, JSON.parse(malformed.text));
    const other = await sendInteraction(url, signingSecret, { type: 'shortcut' });
    assert.equal(other.status, 200);
    assert.ok(post.responses['200'], 'POST /slack/interactions declares 200');
    // Another method is a 405, as on every documented path.
    const get = await fetch(`${url}/slack/interactions`);
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
