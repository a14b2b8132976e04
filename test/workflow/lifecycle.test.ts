import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cancelRun } from '../../client/index.js';
import { searchAttributeKeys } from '../../workflows/search-attributes.js';
import { call, calls, fail, say } from '../support/fake-model.js';
import { bankAgent, executionsOf, impatientAgent } from './fixtures/agents.js';
import { installTestRuntime } from '../support/worker.js';
import { startHarness, uniqueInput, waitFor, type Harness } from './fixtures/harness.js';

describe('run lifecycle', () => {
  let h: Harness;
  before(async () => {
    // The SDK logs every failed activity attempt; here model and tool failures are provoked on purpose.
    installTestRuntime('ERROR');
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  it('cancelling a run settles its pending approvals as cancelled and ends it cleanly', async () => {
    const input = uniqueInput('cancel me');
    h.fake.script(
      input,
      calls(
        call('transfer', { from: 'A', to: 'B', amount: 5000 }, 'x1'),
        call('wire', { to: 'CH', amount: 1 }, 'x2'),
      ),
      say('unreachable'),
    );
    const runId = await h.start(bankAgent, input);
    await h.waitForPending(runId, 2);
    await h.client.workflow.getHandle(runId).cancel();

    assert.deepEqual(await h.outcome(runId), { status: 'cancelled', reason: 'the run was cancelled' });
    const state = await h.state(runId);
    assert.equal(state.status, 'cancelled');
    assert.deepEqual(
      state.approvals.map((a) => a.status),
      ['cancelled', 'cancelled'],
    );
    // Cancelled through Temporal alone: the run says so, and names nobody.
    const cancelled = state.events.filter((e) => e.type === 'run.cancelled');
    assert.equal(cancelled.length, 1);
    assert.equal(cancelled[0]!.actor, undefined);
    assert.deepEqual(
      state.approvals.map((a) => a.outcome?.by),
      [[], []],
    );
    assert.equal(executionsOf(runId).length, 0);
    const description = await h.client.workflow.getHandle(runId).describe();
    assert.equal(description.typedSearchAttributes.get(searchAttributeKeys.status), 'cancelled');
    assert.equal(description.typedSearchAttributes.get(searchAttributeKeys.pending), 0);

    // A decision after the end: refused from the closed run's state, nothing runs.
    const late = await h.decide(state.approvals[0]!.trackingId, { type: 'approve' });
    assert.equal(late.code, 'already_settled');
    assert.equal(late.status, 'cancelled');
    await h.saveHistory('cancel', runId);
  });

  it('cancelRun tells the run who cancels it and through which channel, before cancelling it', async () => {
    const input = uniqueInput('cancel with a name');
    h.fake.script(
      input,
      calls(
        call('transfer', { from: 'A', to: 'B', amount: 5000 }, 'y1'),
        call('wire', { to: 'CH', amount: 1 }, 'y2'),
      ),
      say('unreachable'),
    );
    const runId = await h.start(bankAgent, input);
    await h.waitForPending(runId, 2);
    await cancelRun(h.client, runId, { actor: 'dana', channel: 'inbox' });

    assert.deepEqual(await h.outcome(runId), {
      status: 'cancelled',
      reason: 'the run was cancelled by dana (inbox)',
    });
    const state = await h.state(runId);
    assert.deepEqual(
      state.approvals.map((a) => [a.status, a.outcome?.by, a.outcome?.message]),
      [
        ['cancelled', ['dana'], 'the run was cancelled by dana (inbox)'],
        ['cancelled', ['dana'], 'the run was cancelled by dana (inbox)'],
      ],
    );
    const cancelled = state.events.filter((e) => e.type === 'run.cancelled');
    assert.deepEqual(
      cancelled.map((e) => [e.actor, e.channel]),
      [['dana', 'inbox']],
    );
    const finished = state.events.at(-1)!;
    assert.equal(finished.type, 'run.finished');
    assert.equal(finished.reason, 'the run was cancelled by dana (inbox)');
    await h.saveHistory('cancel-signal', runId);
  });

  it('retries the model on 429 and 500, through the openai client and then Temporal', async () => {
    const input = uniqueInput('flaky model');
    // Five failures outlast the client's three retries; the activity retry carries on.
    const conversation = h.fake.script(
      input,
      fail(429),
      fail(500),
      fail(500),
      fail(429),
      fail(503),
      calls(call('lookup_balance', { account: 'A' }, 'l1')),
      say('balance is 5000'),
    );
    const runId = await h.start(bankAgent, input);
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'balance is 5000' });
    assert.equal(conversation.requests.length, 7);
    // The model's API key lives in the activity's closure, never in the history.
    // History JSON carries payloads in base64: decode them all and search the lot.
    const json = JSON.stringify(await h.client.workflow.getHandle(runId).fetchHistory());
    const payloads = [...json.matchAll(/"data":"([A-Za-z0-9+/=]+)"/g)].map((m) =>
      Buffer.from(m[1]!, 'base64').toString('utf8'),
    );
    const history = [json, ...payloads].join('\n');
    assert.ok(!history.includes('test-key'));
    assert.ok(history.includes('balance is 5000'));
    await h.saveHistory('model-retries', runId);
  });

  it('ends the run as failed when the model refuses the request; tool failures reach the model', async () => {
    const input = uniqueInput('broken');
    const conversation = h.fake.script(input, calls(call('flaky', {}, 'k1')), fail(400, 'model not found'));
    const runId = await h.start(bankAgent, input);
    const output = await h.result(runId);
    assert.equal(output.status, 'failed');
    assert.match(output.reason!, /model not found/);
    assert.match(conversation.toolMessages().get('k1')!, /the flaky service is down/);
    const state = await waitFor(async () => h.state(runId), 'state');
    assert.equal(state.status, 'failed');
    await h.saveHistory('model-failure', runId);
  });

  it('stops at the turn limit', async () => {
    const input = uniqueInput('endless');
    const conversation = h.fake.script(input, calls(call('lookup_balance', { account: 'A' })));
    const runId = await h.start(impatientAgent, input);
    assert.deepEqual(await h.outcome(runId), { status: 'failed', reason: 'the turn limit of 2 was reached' });
    assert.equal(conversation.requests.length, 2);
    assert.equal(executionsOf(runId).length, 2);
    await h.saveHistory('turn-limit', runId);
  });
});
