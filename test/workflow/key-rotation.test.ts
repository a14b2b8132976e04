// Key rotation (issue 32): a run started under key k1 and waiting for a person is finished by
// workers restarted with k2 as their current key; what they write from then on is under k2.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { sendDecision, startRun } from '../../client/index.js';
import { aesGcmCodec, ENCRYPTION_KEY_ID } from '../../codec/aes-gcm-codec.js';
import { RunOutput } from '../../protocol/index.js';
import { stateQuery } from '../../workflows/definitions.js';
import { bank, toolRuns } from '../support/api-agents.js';
import { call, calls, FakeModel, say } from '../support/fake-model.js';
import { getTestTemporal, type TestTemporal } from '../support/temporal-server.js';
import { startTestWorker, type TestWorker } from '../support/worker.js';
import { waitFor } from '../support/wait-for.js';

const E = proto.temporal.api.enums.v1.EventType;
const k1 = randomBytes(32);
const k2 = randomBytes(32);
/** Before the rotation every process holds k1 only; after it, k2 encrypts and k1 still reads. */
const before1 = aesGcmCodec({ keys: { k1 }, encryptWith: 'k1' });
const after2 = aesGcmCodec({ keys: { k2, k1 }, encryptWith: 'k2' });

let temporal: TestTemporal;
let fake: FakeModel;
let worker: TestWorker | undefined;
const taskQueue = `rotation-${randomUUID()}`;

before(async () => {
  temporal = await getTestTemporal();
  fake = await FakeModel.start();
});
after(async () => {
  await worker?.stop();
  await fake?.close();
  await temporal?.stop();
});

const clientWith = (codec: ReturnType<typeof aesGcmCodec>) =>
  new Client({
    connection: temporal.connection,
    namespace: temporal.namespace,
    dataConverter: { payloadCodecs: [codec] },
  });

const startWorker = (payloadCodec: ReturnType<typeof aesGcmCodec>) =>
  startTestWorker({
    address: temporal.address,
    namespace: temporal.namespace,
    taskQueue,
    agents: [bank],
    model: { baseUrl: fake.url, apiKey: 'test-key' },
    payloadCodec,
  });

test('a run paused under k1 finishes under k2, read with both', async () => {
  const input = `Rotate around ${randomUUID().slice(0, 8)}`;
  const args = { from: 'a-1', to: 'b-2', amount: 50 };
  fake.script(input, calls(call('transfer', args)), say('Moved it after the rotation.'));

  worker = await startWorker(before1);
  const old = clientWith(before1);
  const { runId } = await startRun(old, { agent: bank, input, requester: 'bob', taskQueue });
  const [approval] = await waitFor(async () => {
    const { pending } = await old.workflow.getHandle(runId).query(stateQuery);
    return pending.length === 1 ? pending : undefined;
  }, 'the transfer to wait for a person');
  await worker.stop();

  // The rotation: every process now encrypts with k2, and keeps k1 to read what it wrote.
  worker = await startWorker(after2);
  const rotated = clientWith(after2);
  const outcome = await sendDecision(
    rotated,
    {
      trackingId: approval!.trackingId,
      decision: { type: 'approve' },
      approver: { id: 'alice', roles: ['admin'] },
      channel: 'api',
      requestId: randomUUID(),
      revision: approval!.revision,
    },
    { waitMs: 30_000 },
  );
  assert.equal(outcome?.accepted, true, JSON.stringify(outcome));
  const result = RunOutput.parse(await rotated.workflow.getHandle(runId).result());
  assert.equal(result.status, 'completed');
  assert.equal(result.output, 'Moved it after the rotation.');
  assert.deepEqual(toolRuns.find((r) => r.runId === runId)?.args, args);

  // Which key each payload of the stored history names, in order.
  const history = await rotated.workflow.getHandle(runId).fetchHistory();
  const keyOf = (payload: { metadata?: Record<string, Uint8Array> | null } | undefined | null) =>
    new TextDecoder().decode(payload?.metadata?.[ENCRYPTION_KEY_ID]);
  const events = history.events ?? [];
  // The decision came as an update, answered by the rotated worker.
  const decidedAt = events.findIndex((e) => e.eventType === E.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED);
  assert.ok(decidedAt > 0, 'the decision in the history');
  assert.equal(keyOf(events[0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]), 'k1');
  const earlier = events
    .slice(0, decidedAt)
    .flatMap((e) => e.activityTaskScheduledEventAttributes?.input?.payloads ?? []);
  assert.ok(earlier.length > 0 && earlier.every((p) => keyOf(p) === 'k1'), 'the first worker wrote under k1');
  const later = events
    .slice(decidedAt)
    .flatMap((e) => [
      ...(e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.args?.payloads ?? []),
      ...(e.workflowExecutionUpdateCompletedEventAttributes?.outcome?.success?.payloads ?? []),
      ...(e.activityTaskScheduledEventAttributes?.input?.payloads ?? []),
      ...(e.activityTaskCompletedEventAttributes?.result?.payloads ?? []),
      ...(e.workflowExecutionCompletedEventAttributes?.result?.payloads ?? []),
    ]);
  assert.ok(later.length >= 4, `found ${later.length} payloads after the rotation`);
  assert.deepEqual(
    [...new Set(later.map(keyOf))],
    ['k2'],
    'everything written after the rotation is under k2',
  );

  // A process that never got k2 can no longer read the run's end, and says which key it lacks.
  await assert.rejects(old.workflow.getHandle(runId).result(), /key "k2", which this codec does not hold/);
});
