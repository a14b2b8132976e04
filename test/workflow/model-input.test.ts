import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import { call, calls, say } from '../support/fake-model.js';
import { MODEL_INPUT_INLINE_CHARS, type ModelCallInput } from '../../workflows/activity-types.js';
import { bankAgent } from './fixtures/agents.js';
import { admin, startHarness, uniqueInput, type Harness } from './fixtures/harness.js';

// A model call carries a short conversation itself, which spares its activity a query to the run;
// a long one is named, and read by the activity, so each turn's history holds only its news.

/** What each of the run's model calls was scheduled with, in order. */
async function modelCalls(h: Harness, runId: string): Promise<ModelCallInput[]> {
  const events = (await h.client.workflow.getHandle(runId).fetchHistory()).events ?? [];
  return events
    .map((e) => e.activityTaskScheduledEventAttributes)
    .filter((a) => a?.activityType?.name === 'callModel')
    .map((a) => defaultPayloadConverter.fromPayload(a!.input!.payloads![0]!));
}

describe('what a model call carries', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h?.close();
  });

  it('a short conversation rides in the call, and the model reads it as the run holds it', async () => {
    const input = uniqueInput('one transfer, its conversation carried');
    const model = h.fake.script(
      input,
      calls(call('transfer', { from: 'A', to: 'B', amount: 1500 }, 't1')),
      say('done'),
    );
    const runId = await h.start(bankAgent, input, 'requester-bob');
    const [view] = await h.waitForPending(runId, 1);
    assert.equal((await h.decide(view!.trackingId, { type: 'approve' }, { approver: admin })).accepted, true);
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'done' });
    const carried = await modelCalls(h, runId);
    assert.deepEqual(
      carried.map((c) => ('messages' in c ? c.messages.map((m) => m.role) : 'a reference')),
      [
        ['system', 'user'],
        ['system', 'user', 'assistant', 'tool'],
      ],
    );
    assert.deepEqual(
      model.requests.map((r) => r.messages.length),
      [2, 4],
    );
    await h.saveHistory('inline-model-input', runId);
  });

  it('a conversation past the bound is named, and the model still reads all of it', async () => {
    const input = uniqueInput(`a long brief: ${'x'.repeat(MODEL_INPUT_INLINE_CHARS)}`);
    const model = h.fake.script(input, say('read it'));
    const runId = await h.start(bankAgent, input, 'requester-bob');
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'read it' });
    const [carried] = await modelCalls(h, runId);
    assert.ok(carried && 'transcript' in carried, 'the call carried the conversation');
    assert.deepEqual(carried.transcript, { workflowId: runId, runId: carried.transcript.runId, length: 2 });
    assert.equal(model.requests[0]!.messages.at(-1)!.content, input);
  });
});
