import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { pauseRun, resumeRun, startRun } from '../../client/index.js';
import { searchAttributeKeys } from '../../workflows/search-attributes.js';
import { call, calls, say, type ChatCompletionRequest, type ModelReply } from '../support/fake-model.js';
import type { TestWorker } from '../support/worker.js';
import { bankAgent, executionsOf } from './fixtures/agents.js';
import { startHarness, uniqueInput, waitFor, type Harness } from './fixtures/harness.js';
import { heldAgent, holdLookup } from './fixtures/held-agent.js';

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
  // A second worker, in this process too, for the agent whose tool the test holds.
  let heldWorker: TestWorker;
  before(async () => {
    h = await startHarness();
    heldWorker = await h.startWorker([heldAgent]);
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

  it('a pause during a running tool lets it finish and stops before the next step', async () => {
    const input = uniqueInput('slow balance, paused mid-tool');
    const account = `acct-${randomUUID().slice(0, 8)}`;
    const hold = holdLookup(account);
    const conversation = h.fake.script(
      input,
      calls(call('slow_lookup', { account }, 's1')),
      say(`The balance of ${account} is 7000.`),
    );
    const { runId } = await startRun(h.client, { agent: heldAgent, input, taskQueue: heldWorker.taskQueue });
    await hold.started;

    // The tool is running: the pause takes the run, and the tool goes on.
    await pauseRun(h.client, runId, { actor: 'lee', channel: 'api', message: 'hold on' });
    const pausing = await waitFor(async () => {
      const state = await h.state(runId);
      return state.status === 'paused' ? state : undefined;
    }, 'the run to pause');
    assert.ok(!pausing.events.some((e) => e.type === 'tool.ran'), 'the tool is still running');
    hold.release();

    // The tool finishes and its result is kept; the run stays paused and asks the model nothing.
    const paused = await waitFor(async () => {
      const state = await h.state(runId);
      return state.events.some((e) => e.type === 'tool.ran') ? state : undefined;
    }, 'the held tool to finish');
    assert.equal(paused.status, 'paused');
    assert.deepEqual(
      paused.events.filter((e) => e.type === 'tool.ran').map((e) => [e.tool, e.data]),
      [['slow_lookup', { toolCallId: 's1', ok: true }]],
    );
    // The tool's answer is in the transcript, for the model's next step.
    const answer = paused.transcript.at(-1)!;
    assert.deepEqual(answer.role === 'tool' && [answer.tool_call_id, JSON.parse(answer.content)], [
      's1',
      { account, balance: 7000 },
    ]);
    assert.equal(executionsOf(runId).length, 1);
    // A query waits for the workflow task in flight, so the task that took the tool's result has
    // completed: had it asked the model again, its history would hold a second model call.
    const modelCalls = async () =>
      ((await h.client.workflow.getHandle(runId).fetchHistory()).events ?? []).filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
      ).length;
    assert.equal(await modelCalls(), 1, 'no model call is scheduled while paused');
    assert.equal(conversation.requests.length, 1, 'the model is asked nothing while paused');
    assert.equal(await statusOf(runId), 'paused');

    await resumeRun(h.client, runId, { actor: 'lee', channel: 'api' });
    const output = await h.result(runId);
    assert.equal(output.status, 'completed');
    assert.equal(output.output, `The balance of ${account} is 7000.`);
    assert.equal(executionsOf(runId).length, 1, 'the tool ran exactly once');
    assert.equal(await modelCalls(), 2);
    assert.equal(conversation.requests.length, 2);
    // The model's next step reads the result the tool gave while the run was paused.
    assert.deepEqual(JSON.parse(conversation.toolMessages().get('s1') ?? 'null'), { account, balance: 7000 });
    const final = await h.state(runId);
    assert.deepEqual(
      final.events
        .filter((e) => ['run.paused', 'tool.ran', 'run.resumed', 'model.responded'].includes(e.type))
        .map((e) => e.type),
      ['model.responded', 'run.paused', 'tool.ran', 'run.resumed', 'model.responded'],
    );
  });

  it('a run paused as the model gives its final answer waits; a correction on resume has the model answer again', async () => {
    const input = uniqueInput('final answer, paused');
    const held = heldReply(say('The balance of A is 5000 dollars.'));
    const conversation = h.fake.script(input, held.step, say('The balance of A is 4600 euros.'));
    const runId = await h.start(bankAgent, input);
    await held.requested;
    await pauseRun(h.client, runId, { actor: 'lee', channel: 'api', message: 'euros, please' });
    await waitFor(async () => ((await statusOf(runId)) === 'paused' ? true : undefined), 'the run to pause');
    held.release();

    // The answer came while paused: the run has it, and waits rather than finishing.
    const waiting = await waitFor(async () => {
      const state = await h.state(runId);
      return state.events.some((e) => e.type === 'model.responded') ? state : undefined;
    }, 'the model reply');
    assert.equal(waiting.status, 'paused');
    assert.ok(!waiting.events.some((e) => e.type === 'run.finished'), 'a paused run does not finish');

    await resumeRun(h.client, runId, { actor: 'lee', channel: 'cli', message: 'Give the balance in euros.' });
    const result = await h.result(runId);
    assert.deepEqual([result.status, result.output], ['completed', 'The balance of A is 4600 euros.']);
    const last = conversation.requests[1]!.messages.at(-1)!;
    assert.deepEqual([last.role, last.content], ['user', 'Give the balance in euros.']);
    assert.equal(conversation.requests[1]!.messages.at(-2)!.role, 'assistant');
    await h.saveHistory('pause-before-finish', runId);
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
