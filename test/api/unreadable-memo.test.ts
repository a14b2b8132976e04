// One bad run never breaks the others (issue 39, item 10): a run whose memo the API cannot decode
// (encrypted under a key its codec does not hold) is listed with what can be read, and a note.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Client } from '@temporalio/client';
import { aesGcmCodec } from '../../codec/aes-gcm-codec.js';
import { listPendingApprovals } from '../../client/index.js';
import { stateQuery } from '../../workflows/definitions.js';
import { call, calls, say } from '../support/fake-model.js';
import { tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

const k1 = randomBytes(32);
const k2 = randomBytes(32);
/** The API's codec: it holds k2 only. */
const apiCodec = aesGcmCodec({ keys: { k2 }, encryptWith: 'k2' });
/** Workers that moved on to k1 (it reads what k2 encrypted): the API was not given the new key. */
const rotated = aesGcmCodec({ keys: { k1, k2 }, encryptWith: 'k1' });

let stack: Stack;
before(async () => {
  stack = await startStack({ payloadCodec: apiCodec });
});
after(() => stack?.close());

const transfer = (memo: string) => calls(call('transfer', { from: 'ops', to: 'acme', amount: 1500, memo }));

interface Listed {
  runs: { runId: string; agent: string; status: string; pending: number; unreadable?: { reason: string } }[];
}
interface Approvals {
  approvals: { trackingId: string; runId: string }[];
}

test('a run whose memo the API cannot decode is listed with a note, beside the runs it can read', async () => {
  const readable = await stack.startRun(
    'bank',
    'unreadable memo: k2',
    tokens.victor,
    transfer('a'),
    say('Done.'),
  );
  const [pending] = await stack.waitForPending(readable);

  await stack.stopWorker();
  await stack.startWorker({ payloadCodec: rotated });
  const unreadable = await stack.startRun(
    'bank',
    'unreadable memo: k1',
    tokens.victor,
    transfer('b'),
    say('Done.'),
  );
  // Read through a client holding k1, as the API cannot.
  const reader = new Client({
    connection: stack.client.connection,
    namespace: stack.client.options.namespace,
    dataConverter: { payloadCodecs: [rotated] },
  });
  await waitFor(async () => {
    const state = await reader.workflow.getHandle(unreadable).query(stateQuery);
    return state.pending.length > 0 ? state : undefined;
  }, 'the run under k1 to ask for approval');

  const listed = await stack.listUntil<Listed>('/api/runs', tokens.alice, (body) =>
    [readable, unreadable].every((id) => body.runs.some((r) => r.runId === id && r.status === 'waiting')),
  );
  const row = (id: string) => listed.runs.find((r) => r.runId === id)!;
  assert.deepEqual(row(readable), { ...row(readable), agent: 'bank', pending: 1 });
  assert.equal(row(readable).unreadable, undefined);
  // What its search attributes say: its agent, status and pending count.
  assert.deepEqual(row(unreadable).unreadable, { reason: 'payload_undecodable' });
  assert.equal(row(unreadable).agent, 'bank');
  assert.equal(row(unreadable).pending, 1);

  // The inbox lists the approvals it can read; the other run's stay out, and nothing fails.
  const inbox = await stack.listUntil<Approvals>('/api/approvals', tokens.alice, (body) =>
    body.approvals.some((a) => a.trackingId === pending!.trackingId),
  );
  assert.equal(
    inbox.approvals.some((a) => a.runId === unreadable),
    false,
  );

  // The library's own list, through a client holding k2 only, as the API's: the same.
  const k2Client = new Client({
    connection: stack.client.connection,
    namespace: stack.client.options.namespace,
    dataConverter: { payloadCodecs: [apiCodec] },
  });
  const waiting = await waitFor(async () => {
    const all = await listPendingApprovals(k2Client);
    return all.some((a) => a.trackingId === pending!.trackingId) ? all : undefined;
  }, 'the readable approval in listPendingApprovals');
  assert.equal(
    waiting.some((a) => a.runId === unreadable),
    false,
  );

  // The run itself: read with what Temporal shows of it, and still paused and cancelled by those
  // who may (the access rule reads its search attributes, not its memo).
  const read = await stack.http('GET', `/api/runs/${unreadable}`, { token: tokens.victor });
  assert.equal(read.status, 200, JSON.stringify(read.body));
  assert.deepEqual(read.body.unreadable, { reason: 'payload_undecodable' });
  assert.deepEqual([read.body.agent, read.body.status, read.body.requester], ['bank', 'waiting', 'victor']);
  const paused = await stack.http('POST', `/api/runs/${unreadable}/pause`, { token: tokens.alice, body: {} });
  assert.equal(paused.status, 202, JSON.stringify(paused.body));
  const cancelled = await stack.http('POST', `/api/runs/${unreadable}/cancel`, { token: tokens.victor });
  assert.equal(cancelled.status, 202, JSON.stringify(cancelled.body));
  const ended = await reader.workflow.getHandle(unreadable).result();
  assert.equal(ended.status, 'cancelled');
});
