// Encryption at rest (issue 32): with a payload codec, what the Temporal server stores holds none of
// a run's plain text; the API, its lists and the codec endpoint read it through the codec.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import proto from '@temporalio/proto';
import { aesGcmCodec, ENCRYPTED_ENCODING, ENCRYPTION_KEY_ID } from '../../codec/aes-gcm-codec.js';
import { SEARCH_ATTRIBUTES } from '../../protocol/index.js';
import { requireTemporalBinary } from '../../dev/index.js';
import { replayHistories } from '../../testing/index.js';
import { bundleWorkflows } from '../../worker/index.js';
import { call, calls, say } from '../support/fake-model.js';
import { toolRuns, tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';
import { installTestRuntime } from '../support/worker.js';

const History = proto.temporal.api.history.v1.History;
type JsonPayload = { metadata?: Record<string, string>; data?: string };

const UI_ORIGIN = 'http://temporal-ui.example:8233';
const codec = aesGcmCodec({ keys: { k1: randomBytes(32) }, encryptWith: 'k1' });
const tag = randomUUID().slice(0, 8);
/** Every piece of plain text the run carries: none may reach the server as it is. */
const plain = {
  input: `Move the quarterly float for ${tag} please`,
  from: `acct-alpha-${tag}`,
  to: `acct-beta-${tag}`,
  memo: `first-memo-${tag}`,
  editedMemo: `edited-memo-${tag}`,
  answer: `Final answer for ${tag}: the float moved.`,
  message: `decision-message-${tag}`,
};

let stack: Stack;
/** A client of the same server without the codec: what anyone reading the namespace sees. */
let raw: Client;
let runId: string;
let trackingId: string;
/** The finished run's history as the server stores it, as protobuf JSON (bytes as base64). */
let stored: Record<string, unknown>;

before(async () => {
  // The replay without the key fails on purpose; the core's warnings about it are noise.
  installTestRuntime('ERROR');
  stack = await startStack({ payloadCodec: codec, codecCorsOrigins: [UI_ORIGIN] });
  raw = new Client({ connection: stack.client.connection, namespace: stack.client.options.namespace });
});
after(() => stack?.close());

const text = (base64: string | undefined) => Buffer.from(base64 ?? '', 'base64').toString('utf8');

/** Every payload of a history in protobuf JSON, but search attributes (plain by design). */
function payloadsOf(node: unknown, found: JsonPayload[] = []): JsonPayload[] {
  if (Array.isArray(node)) for (const item of node) payloadsOf(item, found);
  else if (typeof node === 'object' && node !== null) {
    const object = node as Record<string, unknown>;
    if (typeof object.metadata === 'object' && object.metadata !== null) found.push(object as JsonPayload);
    else
      for (const [key, value] of Object.entries(object)) {
        if (key !== 'searchAttributes') payloadsOf(value, found);
      }
  }
  return found;
}

async function storedHistory(id: string): Promise<Record<string, unknown>> {
  const history = await raw.workflow.getHandle(id).fetchHistory();
  return History.toObject(History.fromObject(history), { longs: String, enums: String, bytes: String });
}

describe('a tool that fails with encryption on', () => {
  test('its error, which quotes its arguments, is stored encrypted; the model still reads it', async () => {
    const report = `missing-${tag}`;
    const secret = `pw-${randomUUID()}`;
    const failedRun = await stack.startRun(
      'dba',
      `Report ${tag}`,
      tokens.bob,
      calls(call('run_report', { report }, 'c1')),
      (request) => say(`tool said: ${request.messages.at(-1)?.content}`),
    );
    const asked = (await stack.waitForPending(failedRun))[0]!;
    assert.equal(asked.kind, 'secret');
    const supplied = await stack.http('POST', `/api/approvals/${asked.trackingId}/decision`, {
      token: tokens.alice,
      body: { type: 'respond', secret },
    });
    assert.equal(supplied.status, 200, supplied.text);
    const result = await stack.result(failedRun);
    assert.match(result.output ?? '', new RegExp(`there is no report named ${report}`));

    const history = await storedHistory(failedRun);
    const bytes = Buffer.from(History.encode(History.fromObject(history)).finish());
    assert.equal(bytes.includes(report), false, 'the stored history holds the failure message in plain text');
    assert.equal(bytes.includes(secret), false, 'the stored history holds the secret');
    assert.ok(JSON.stringify(history).includes('activityTaskFailedEventAttributes'), 'the tool failed');
  });
});

describe('a run with encryption on', () => {
  test('asks, takes an edit and answers, reading through the codec everywhere', async () => {
    const args = { from: plain.from, to: plain.to, amount: 4321, memo: plain.memo };
    runId = await stack.startRun(
      'bank',
      plain.input,
      tokens.bob,
      calls(call('transfer', args)),
      say(plain.answer),
    );
    trackingId = (await stack.waitForPending(runId))[0]!.trackingId;

    // The inbox reads the pending approval from the run's (encrypted) memo.
    const inbox = await stack.listUntil<{ approvals: { trackingId: string; args: unknown }[] }>(
      '/api/approvals',
      tokens.alice,
      (body) => body.approvals.some((a) => a.trackingId === trackingId),
    );
    assert.deepEqual(inbox.approvals.find((a) => a.trackingId === trackingId)!.args, args);
    const runs = await stack.listUntil<{ runs: { runId: string; status: string; pending: number }[] }>(
      '/api/runs',
      tokens.alice,
      (body) => body.runs.some((r) => r.runId === runId && r.status === 'waiting'),
    );
    assert.equal(runs.runs.find((r) => r.runId === runId)!.pending, 1);

    // Search attributes stay plain, for list queries: read them without the codec.
    const { workflowExecutionInfo } = await raw.workflowService.describeWorkflowExecution({
      namespace: raw.options.namespace,
      execution: { workflowId: runId },
    });
    const fields = workflowExecutionInfo!.searchAttributes!.indexedFields!;
    const attribute = (name: string) => defaultPayloadConverter.fromPayload(fields[name]!);
    assert.equal(attribute(SEARCH_ATTRIBUTES.agent.name), 'bank');
    assert.equal(attribute(SEARCH_ATTRIBUTES.status.name), 'waiting');
    assert.equal(attribute(SEARCH_ATTRIBUTES.pending.name), 1);
    assert.deepEqual(attribute(SEARCH_ATTRIBUTES.pendingTools.name), ['transfer']);
    assert.equal(attribute(SEARCH_ATTRIBUTES.requester.name), 'bob');
    assert.equal(
      await raw.workflow.count(`${SEARCH_ATTRIBUTES.agent.name} = 'bank'`).then((c) => c.count > 0),
      true,
    );

    const edited = { ...args, amount: 1234, memo: plain.editedMemo };
    const decided = await stack.http('POST', `/api/approvals/${trackingId}/decision`, {
      token: tokens.alice,
      body: { type: 'edit', args: edited, message: plain.message },
    });
    assert.equal(decided.status, 200, decided.text);

    const result = await stack.result(runId);
    assert.equal(result.status, 'completed');
    assert.equal(result.output, plain.answer);
    assert.deepEqual(toolRuns.find((r) => r.runId === runId)?.args, edited);
    const detail = await stack.http('GET', `/api/runs/${runId}`, { token: tokens.alice });
    assert.equal(detail.status, 200, detail.text);
    assert.ok(detail.text.includes(plain.editedMemo) && detail.text.includes(plain.message));
    await stack.listUntil<{ runs: { runId: string; status: string }[] }>('/api/runs', tokens.alice, (body) =>
      body.runs.some((r) => r.runId === runId && r.status === 'completed'),
    );
  });

  test('the server stores none of its plain text, and every payload encrypted', async () => {
    stored = await storedHistory(runId);
    const bytes = Buffer.from(History.encode(History.fromObject(stored)).finish());
    for (const [what, value] of Object.entries(plain)) {
      assert.equal(bytes.includes(value), false, `the stored history holds the ${what} in plain text`);
    }
    // Patch markers are written by the SDK's core, not through the codec: they name a patch only.
    const events = stored.events as Record<string, Record<string, unknown> | undefined>[];
    const isPatch = (e: (typeof events)[number]) =>
      e.markerRecordedEventAttributes?.markerName === 'core_patch';
    for (const marker of payloadsOf(events.filter(isPatch))) {
      assert.deepEqual(Object.keys(JSON.parse(text(marker.data))).sort(), ['deprecated', 'id']);
    }
    const payloads = payloadsOf(events.filter((e) => !isPatch(e)));
    assert.ok(payloads.length >= 10, `found ${payloads.length} payloads`);
    for (const payload of payloads) {
      assert.equal(text(payload.metadata?.encoding), ENCRYPTED_ENCODING, JSON.stringify(payload));
      assert.equal(text(payload.metadata?.[ENCRYPTION_KEY_ID]), 'k1');
    }
  });

  test('the codec decodes what it stored', async () => {
    const [input] = payloadsOf((stored.events as Record<string, unknown>[])[0]);
    await assert.rejects(
      codec.decode([{ metadata: { encoding: Buffer.from(ENCRYPTED_ENCODING) }, data: new Uint8Array(40) }]),
      /names no key/,
    );
    const full = await codec.decode([
      {
        metadata: Object.fromEntries(
          Object.entries(input!.metadata!).map(([k, v]) => [k, Buffer.from(v, 'base64')]),
        ),
        data: Buffer.from(input!.data!, 'base64'),
      },
    ]);
    assert.ok(JSON.stringify(defaultPayloadConverter.fromPayload(full[0]!)).includes(plain.input));
  });
});

describe('the codec endpoint', () => {
  const post = (
    direction: string,
    body: unknown,
    options: { token?: string; headers?: Record<string, string> } = {},
  ) => stack.http('POST', `/api/codec/${direction}`, { body, ...options });

  test('decodes a payload of the stored history for an admin', async () => {
    const [input] = payloadsOf((stored.events as Record<string, unknown>[])[0]);
    const answer = await post(
      'decode',
      { payloads: [input] },
      { token: tokens.alice, headers: { 'x-namespace': 'default' } },
    );
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    const [decoded] = answer.body.payloads as JsonPayload[];
    assert.equal(text(decoded!.metadata!.encoding), 'json/plain');
    assert.ok(text(decoded!.data).includes(plain.input));

    // Encode, then decode: the protocol both ways; an unencrypted payload passes decode as sent.
    const sent = {
      metadata: { encoding: Buffer.from('json/plain').toString('base64') },
      data: Buffer.from('"hi"').toString('base64'),
    };
    const encoded = await post('encode', { payloads: [sent] }, { token: tokens.alice });
    assert.equal(encoded.status, 200, encoded.text);
    const [sealed] = encoded.body.payloads as JsonPayload[];
    assert.equal(text(sealed!.metadata!.encoding), ENCRYPTED_ENCODING);
    assert.equal(text(sealed!.metadata![ENCRYPTION_KEY_ID]), 'k1');
    const back = await post('decode', { payloads: [sealed, sent] }, { token: tokens.alice });
    assert.deepEqual(back.body.payloads, [sent, sent]);
  });

  test('is 401 without a token, 403 for those who may not read every run', async () => {
    const [input] = payloadsOf((stored.events as Record<string, unknown>[])[0]);
    const anonymous = await post('decode', { payloads: [input] });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.text.includes(plain.input), false);
    const unknown = await post('decode', { payloads: [input] }, { token: 'not-a-token-of-anyone' });
    assert.equal(unknown.status, 401);
    for (const token of [tokens.bob, tokens.victor]) {
      const refused = await post('decode', { payloads: [input] }, { token });
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.body.error.code, 'role_not_allowed');
    }
  });

  test('refuses a malformed body or a payload it cannot decode with 400', async () => {
    for (const body of [
      { payloads: [{ data: '!!not base64!!' }] },
      { payloads: 'nope' },
      {},
      '{"payloads": [',
    ] as unknown[]) {
      const answer = await post('decode', body, { token: tokens.alice });
      assert.equal(answer.status, 400, `${JSON.stringify(body)}: ${answer.text}`);
    }
    const [input] = payloadsOf((stored.events as Record<string, unknown>[])[0]);
    const altered = Buffer.from(input!.data!, 'base64');
    altered[20] = altered[20]! ^ 1;
    const tampered = await post(
      'decode',
      { payloads: [{ ...input, data: altered.toString('base64') }] },
      { token: tokens.alice },
    );
    assert.equal(tampered.status, 400);
    assert.equal(tampered.body.error.code, 'decode_failed');
    assert.match(tampered.body.error.message, /key "k1"/);
    const other = await post(
      'decode',
      { payloads: [input] },
      { token: tokens.alice, headers: { 'x-namespace': 'elsewhere' } },
    );
    assert.equal(other.status, 404);
  });

  test('answers CORS preflight for the configured Web UI origin only', async () => {
    const preflight = (origin: string) =>
      fetch(`${stack.url}/api/codec/decode`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type,x-namespace',
        },
      });
    const allowed = await preflight(UI_ORIGIN);
    assert.equal(allowed.status, 204);
    assert.equal(allowed.headers.get('access-control-allow-origin'), UI_ORIGIN);
    assert.equal(allowed.headers.get('access-control-allow-credentials'), 'true');
    assert.match(allowed.headers.get('access-control-allow-headers') ?? '', /Authorization/);
    assert.match(allowed.headers.get('access-control-allow-headers') ?? '', /X-Namespace/);
    assert.match(allowed.headers.get('access-control-allow-methods') ?? '', /POST/);

    const refused = await preflight('https://evil.example');
    assert.equal(refused.status, 403);
    assert.equal(refused.headers.get('access-control-allow-origin'), null);

    // The request itself, from the UI, carries the headers a browser needs to read the answer.
    const [input] = payloadsOf((stored.events as Record<string, unknown>[])[0]);
    const answer = await post(
      'decode',
      { payloads: [input] },
      { token: tokens.alice, headers: { origin: UI_ORIGIN } },
    );
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('access-control-allow-origin'), UI_ORIGIN);
    const denied = await post('decode', { payloads: [input] }, { headers: { origin: UI_ORIGIN } });
    assert.equal(denied.status, 401);
    assert.equal(denied.headers.get('access-control-allow-origin'), UI_ORIGIN, 'the UI can read why');
  });

  test('the temporal CLI reads the run through it (--codec-endpoint, --codec-auth)', async () => {
    const temporal = requireTemporalBinary('cli', process.env);
    const show = (...extra: string[]) =>
      run(temporal, [
        'workflow',
        'show',
        '--workflow-id',
        runId,
        '--address',
        stack.temporalAddress,
        '--namespace',
        stack.client.options.namespace,
        '--output',
        'json',
        ...extra,
      ]);
    // The CLI prints payloads as they come back, data in base64: read them as the user's tools would.
    const shown = (stdout: string) =>
      payloadsOf(JSON.parse(stdout))
        .map((p) => text(p.data))
        .join('\n');
    const encrypted = await show();
    assert.equal(encrypted.code, 0, encrypted.stderr);
    assert.equal(shown(encrypted.stdout).includes(plain.input), false);
    const decoded = await show(
      '--codec-endpoint',
      `${stack.url}/api/codec`,
      '--codec-auth',
      `Bearer ${tokens.alice}`,
    );
    assert.equal(decoded.code, 0, decoded.stderr);
    assert.ok(shown(decoded.stdout).includes(plain.input), 'the input, decoded');
    assert.ok(shown(decoded.stdout).includes(plain.answer), 'the answer, decoded');
    // {namespace} in the endpoint, as the CLI's docs write it, reaches the same codec.
    const templated = await show(
      '--codec-endpoint',
      `${stack.url}/api/codec/{namespace}`,
      '--codec-auth',
      `Bearer ${tokens.alice}`,
    );
    assert.equal(templated.code, 0, templated.stderr);
    assert.ok(shown(templated.stdout).includes(plain.message), 'the decision message, decoded');
  });
});

test('an encrypted history replays through the codec, and not without it', async () => {
  const recorded = { workflowId: runId, history: History.fromObject(stored) };
  const workflowBundle = await bundleWorkflows();
  const [ok] = await replayHistories(recorded, { payloadCodec: codec, workflowBundle });
  assert.equal(ok!.ok, true, ok!.error?.message);
  const [failed] = await replayHistories(recorded, { workflowBundle, throwOnFailure: false });
  assert.equal(failed!.ok, false, 'a replay without the key cannot read the run');
});

function run(
  command: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
