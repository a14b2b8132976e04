import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pauseRun, resumeRun } from '../../client/index.js';
import { searchAttributeKeys } from '../../workflows/search-attributes.js';
import { call, calls, say, type ChatCompletionRequest, type ModelReply } from '../support/fake-model.js';
import { bankAgent, executionsOf } from './fixtures/agents.js';
import { startHarness, uniqueInput, waitFor, type Harness } from './fixtures/harness.js';

/** A model reply held back until the test lets it go, so a pause lands while the model "thinks". */
function heldReply(reply: ModelReply) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let asked!: () => void;
  const requested = new Promise<void>((resolve) => (asked = resolve));
  const step = async (_request: ChatCompletionRequest) => {
    asked();
    await released;
    return reply;
  };
  return { step, requested, release };
}

describe('pause and resume between steps', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  const statusOf = async (runId: string) =>
    (await h.client.workflow.getHandle(runId).describe()).typedSearchAttributes.get(
      searchAttributeKeys.status,
    );

  it('a run paused while the model thinks starts no tool, automatic ones included, until resumed; the correction reaches the model', async () => {
    const input = uniqueInput('balance, paused');
    const held = heldReply(calls(call('lookup_balance', { account: 'A' }, 'b1')));
    const conversation = h.fake.script(input, held.step, say('The balance of A is 5000.'));
    const runId = await h.start(bankAgent, input);
    await held.requested;
    await pauseRun(h.client, runId, { actor: 'lee', channel: 'api', message: 'checking something' });
    await waitFor(async () => ((await statusOf(runId)) === 'paused' ? true : undefined), 'the run to pause');
    held.release();

    // The model's reply arrives; the automatic call waits for the resume.
    await waitFor(async () => {
      const state = await h.state(runId);
      return state.events.some((e) => e.type === 'model.responded') ? state : undefined;
    }, 'the model reply');
    const paused = await h.state(runId);
    assert.equal(paused.status, 'paused');
    assert.equal(executionsOf(runId).length, 0, 'no tool starts while paused');
    const pausedEvent = paused.events.find((e) => e.type === 'run.paused');
    assert.deepEqual(
      [pausedEvent?.actor, pausedEvent?.channel, pausedEvent?.message],
      ['lee', 'api', 'checking something'],
    );

    // A second pause changes nothing; a resume goes on from where it stopped, with the correction.
    await pauseRun(h.client, runId, { actor: 'sam', channel: 'cli' });
    await resumeRun(h.client, runId, {
      actor: 'lee',
      channel: 'inbox',
      message: 'Report the balance in euros.',
    });
    const result = await h.result(runId);
    assert.equal(result.status, 'completed');
    assert.deepEqual(
      executionsOf(runId).map((e) => e.tool),
      ['lookup_balance'],
    );
    const final = await h.state(runId);
    assert.deepEqual(
      final.events
        .filter((e) => e.type === 'run.paused' || e.type === 'run.resumed')
        .map((e) => [e.type, e.actor]),
      [
        ['run.paused', 'lee'],
        ['run.resumed', 'lee'],
      ],
    );
    // The model's next request carries the correction as the user's word, after the tool's answer.
    const next = conversation.requests[1]!;
    const last = next.messages.at(-1)!;
    assert.deepEqual([last.role, last.content], ['user', 'Report the balance in euros.']);
    assert.equal(next.messages.at(-2)!.role, 'tool');
    await h.saveHistory('pause-resume', runId);
  });

  it('a resume of a run that is not paused changes nothing', async () => {
    const input = uniqueInput('balance, never paused');
    const conversation = h.fake.script(
      input,
      calls(call('lookup_balance', { account: 'B' }, 'b2')),
      say('B holds 5000.'),
    );
    const runId = await h.start(bankAgent, input);
    await resumeRun(h.client, runId, { actor: 'lee', channel: 'api', message: 'ignored' });
    assert.equal((await h.result(runId)).status, 'completed');
    const state = await h.state(runId);
    assert.equal(state.events.filter((e) => e.type === 'run.resumed').length, 0);
    assert.ok(conversation.requests.every((r) => r.messages.every((m) => m.content !== 'ignored')));
  });
});
