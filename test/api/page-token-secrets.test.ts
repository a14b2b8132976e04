import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createApi } from '../../api/create-api.js';
import { HttpError } from '../../api/errors.js';
import { openPageToken, sealPageToken } from '../../api/runs/page-tokens.js';
import { signingKeyId } from '../../notify/signing-key-id.js';
import { call, calls, say } from '../support/fake-model.js';
import { apiTestAgents, tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';

/**
 * A list's `pageToken` is sealed with the signing secret. One sealed by an API with another secret
 * is refused as that (`signing_secret_mismatch`, naming the setting), not as forged; a forged one is
 * `invalid_page_token` whatever key id it names.
 */

const ours = 'page-token-secret-A-0123456789abcdef-0123456789';
const theirs = 'page-token-secret-B-0123456789abcdef-0123456789';
const query = 'WorkflowType = "agentRun"';
const raw = Buffer.from('temporal-page-token');

function refusal(open: () => unknown): HttpError {
  try {
    open();
  } catch (err) {
    assert.ok(err instanceof HttpError);
    return err;
  }
  assert.fail('the token was taken');
}

test('a page token opens with the secret and query it was sealed for', () => {
  assert.deepEqual(openPageToken(ours, query, sealPageToken(ours, query, raw)), raw);
  const otherQuery = refusal(() => openPageToken(ours, `${query} AND x`, sealPageToken(ours, query, raw)));
  assert.deepEqual([otherQuery.status, otherQuery.details.code], [422, 'invalid_page_token']);
});

test('a page token sealed with another secret is refused naming the setting, and the operator is told', (t) => {
  const warned = t.mock.method(console, 'warn', () => undefined);
  const err = refusal(() => openPageToken(ours, query, sealPageToken(theirs, query, raw)));
  assert.deepEqual([err.status, err.details.code], [422, 'signing_secret_mismatch']);
  assert.match(err.message, /another signing secret/);
  assert.match(err.message, /COUNTERSIGN_SIGNING_SECRET/);
  assert.match(err.message, /signingSecret/);
  assert.equal(warned.mock.callCount(), 1);
  const line = String(warned.mock.calls[0]!.arguments[0]);
  assert.ok(line.includes(signingKeyId(theirs)) && line.includes(signingKeyId(ours)), line);
  assert.match(line, /COUNTERSIGN_SIGNING_SECRET/);
  assert.ok(!line.includes(ours) && !line.includes(theirs), 'no secret in the log');
});

test("a page token forged with this API's own key id is refused as forged", (t) => {
  const warned = t.mock.method(console, 'warn', () => undefined);
  const bytes = Buffer.from(sealPageToken(theirs, query, raw), 'base64url');
  Buffer.from(signingKeyId(ours), 'hex').copy(bytes, 1);
  const err = refusal(() => openPageToken(ours, query, bytes.toString('base64url')));
  assert.equal(err.details.code, 'invalid_page_token');
  assert.equal(warned.mock.callCount(), 0);
});

let stack: Stack;
let other: Server;
let otherUrl: string;
before(async () => {
  stack = await startStack();
  // A second API on the same Temporal whose signing secret differs from the stack's.
  other = createServer(
    createApi({
      client: stack.client,
      taskQueue: stack.taskQueue,
      agents: apiTestAgents,
      approvers: stack.approvers,
      signingSecret: theirs,
      publicUrl: 'http://127.0.0.1',
    }),
  );
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
});
after(async () => {
  other?.closeAllConnections();
  other?.close();
  await stack?.close();
});

test('an API refuses the next page another API handed out with another secret, naming the setting', async (t) => {
  for (const input of ['page token: one', 'page token: two']) {
    const transfer = calls(call('transfer', { from: 'ops', to: 'acme', amount: 1500 }));
    await stack.waitForPending(await stack.startRun('bank', input, tokens.alice, transfer, say('never')));
  }
  const route = '/api/runs?status=waiting&agent=bank&limit=1';
  await stack.listUntil(route, tokens.alice, (body: { nextPageToken?: string }) => !!body.nextPageToken);
  const first = await fetch(otherUrl + route, { headers: { authorization: `Bearer ${tokens.alice}` } });
  const { nextPageToken } = (await first.json()) as { nextPageToken: string };
  assert.ok(nextPageToken);
  const again = await fetch(`${otherUrl}${route}&pageToken=${nextPageToken}`, {
    headers: { authorization: `Bearer ${tokens.alice}` },
  });
  assert.equal(again.status, 200, 'the API that handed it out takes it');

  const warned = t.mock.method(console, 'warn', () => undefined);
  const refused = await stack.http('GET', `${route}&pageToken=${nextPageToken}`, { token: tokens.alice });
  assert.equal(refused.status, 422);
  assert.equal(refused.body.error.code, 'signing_secret_mismatch');
  assert.match(refused.body.error.message, /COUNTERSIGN_SIGNING_SECRET/);
  assert.equal(warned.mock.callCount(), 1);
});
