import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startRun, supplySecret } from '../../client/index.js';
import { secretSealer } from '../../secrets/sealer.js';
import { call, calls, say } from '../support/fake-model.js';
import type { TestWorker } from '../support/worker.js';
import { executionsOf } from './fixtures/agents.js';
import { startHarness, toolMessages, uniqueInput, waitFor, type Harness } from './fixtures/harness.js';
import { secretAgent } from './fixtures/secret-agent.js';

/** Lowered from the server's 4,096 so a few turns reach it, and the run continues as new. */
const SUGGEST_AT_EVENTS = 40;

const secretKeys = { keys: { s1: randomBytes(32) }, encryptWith: 's1' };
const sealer = secretSealer(secretKeys);

describe('secrets a person supplies, in the workflow', () => {
  let h: Harness;
  let worker: TestWorker;
  let keyless: TestWorker;
  before(async () => {
    h = await startHarness({
      worker: false,
      dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': SUGGEST_AT_EVENTS },
    });
    worker = await h.startWorker([secretAgent], { secretKeys });
    keyless = await h.startWorker([secretAgent]);
  });
  after(() => h?.close());

  const start = async (on: TestWorker, input: string) =>
    (await startRun(h.client, { agent: secretAgent, input, taskQueue: on.taskQueue })).runId;

  /** The first execution of the run's chain that scheduled a tool whose input holds `needle`. */
  async function executionScheduling(runId: string, needle: string) {
    const { raw } = await h.client.workflow.getHandle(runId).describe();
    let execution = raw.workflowExecutionInfo?.firstRunId ?? undefined;
    while (execution) {
      const events = (await h.client.workflow.getHandle(runId, execution).fetchHistory()).events ?? [];
      for (const event of events) {
        const data = event.activityTaskScheduledEventAttributes?.input?.payloads?.[0]?.data;
        const input = data ? Buffer.from(data).toString('utf8') : '';
        if (input.includes(needle)) return { execution, input };
      }
      execution =
        events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
    }
    return undefined;
  }

  /** The sealed secret, as the API would send it for this approval. */
  const supply = (trackingId: string, name: string, value: string) =>
    h.decide(trackingId, { type: 'respond', sealed: sealer.seal(value, { trackingId, name }) });

  it('a code kept for the run is asked once and carried, sealed, across continue-as-new', async () => {
    const code = `otp-${randomUUID()}`;
    const input = uniqueInput('sign in after a while');
    const lookups = Array.from({ length: 8 }, (_, i) =>
      calls(call('lookup_balance', { account: `A${i}` }, `l${i}`)),
    );
    h.fake.script(
      input,
      calls(call('ask_human', { question: 'Your code?', secret: 'otp' }, 'q1')),
      ...lookups,
      calls(call('sign_in', { account: 'ops' }, 's1')),
      calls(call('sign_in', { account: 'billing' }, 's2')),
      say('signed in twice'),
    );
    const runId = await start(worker, input);
    const [asked] = await h.waitForPending(runId, 1);
    assert.equal(asked!.kind, 'secret');
    assert.deepEqual(asked!.secret, { name: 'otp', label: 'the one-time code' });
    const outcome = await supply(asked!.trackingId, 'otp', code);
    assert.equal(outcome.status, 'responded');

    const result = await h.outcome(runId);
    assert.equal(result.status, 'completed');
    // The execution that ran a sign-in: the tool's input carries the code sealed, never plain.
    const signed = await executionScheduling(runId, '"tool":"sign_in","args"');
    assert.ok(signed, 'an execution of the chain ran sign_in');
    assert.match(signed.input, /"secrets":\[\{"name":"otp","trackingId":"[^"]+","sealed":"cs1:s1:/);
    assert.equal(signed.input.includes(code), false);
    await h.saveHistory('secret-input', runId, signed.execution);
    const state = await h.state(runId);
    assert.ok(
      state.events.some((e) => e.type === 'run.continued'),
      'the run continued as new between the code and its use',
    );
    const signIns = executionsOf(runId).filter((e) => e.tool === 'sign_in');
    assert.deepEqual(
      signIns.map((e) => e.context.secrets),
      [{ otp: code }, { otp: code }],
    );
    assert.equal(state.approvals.length, 1, 'asked once');
    assert.match(toolMessages(state).get('q1') ?? '', /supplied the secret "otp"\. You never see it/);
    assert.equal(JSON.stringify(state).includes(code), false, 'the run state holds the code');
  });

  it('declined: the call fails without running, and the model is told who declined', async () => {
    const input = uniqueInput('declined');
    h.fake.script(input, calls(call('sign_in', { account: 'ops' }, 's1')), say('could not sign in'));
    const runId = await start(worker, input);
    const [asked] = await h.waitForPending(runId, 1);
    assert.equal(asked!.toolCallId, 's1');
    const refused = await h.decide(asked!.trackingId, { type: 'reject', message: 'not today' });
    assert.equal(refused.status, 'rejected');
    const state = (await h.result(runId)).state!;
    assert.equal(executionsOf(runId).length, 0, 'the tool never ran');
    assert.match(
      toolMessages(state).get('s1') ?? '',
      /alice declined to supply the one-time code: not today/,
    );
  });

  it('a call that goes without one of its secrets drops the others supplied for it', async () => {
    const input = uniqueInput('half supplied');
    h.fake.script(
      input,
      calls(call('unlock', { vault: 'A' }, 'u1')),
      calls(call('unlock', { vault: 'A' }, 'u2')),
      say('could not unlock'),
    );
    const runId = await start(worker, input);
    const [key] = await h.waitForPending(runId, 1);
    assert.equal(key!.secret?.name, 'vault_key');
    await supply(key!.trackingId, 'vault_key', `key-${randomUUID()}`);
    const [code] = await waitFor(async () => {
      const pending = await h.waitForPending(runId, 1);
      return pending[0]!.trackingId !== key!.trackingId ? pending : undefined;
    }, 'the code to be asked for');
    assert.equal(code!.secret?.name, 'vault_code');
    await h.decide(code!.trackingId, { type: 'reject' });
    // The next call is asked for the key again: the one supplied for the first call went with it.
    const [again] = await waitFor(async () => {
      const pending = await h.waitForPending(runId, 1);
      return pending[0]!.trackingId !== code!.trackingId ? pending : undefined;
    }, 'the second call to ask');
    assert.equal(again!.secret?.name, 'vault_key');
    assert.equal(again!.toolCallId, 'u2');
    await h.decide(again!.trackingId, { type: 'reject' });
    assert.equal((await h.result(runId)).status, 'completed');
    assert.equal(executionsOf(runId).length, 0, 'the tool never ran');
  });

  it('a worker without the secret keys fails the call, naming the secret and not its value', async () => {
    const code = `otp-${randomUUID()}`;
    const input = uniqueInput('no keys');
    h.fake.script(input, calls(call('sign_in', { account: 'ops' }, 's1')), say('could not sign in'));
    const runId = await start(keyless, input);
    const [asked] = await h.waitForPending(runId, 1);
    // A team's own service supplies it through the library, as the API would.
    const outcome = await supplySecret(h.client, sealer, {
      trackingId: asked!.trackingId,
      secret: code,
      approver: { id: 'alice', roles: ['admin'] },
      requestId: randomUUID(),
    });
    assert.equal(outcome?.status, 'responded');
    const state = (await h.result(runId)).state!;
    assert.equal(executionsOf(runId).length, 0, 'the tool never ran');
    const told = toolMessages(state).get('s1') ?? '';
    assert.match(told, /sign_in needs secrets, and this worker holds no secret keys/);
    assert.equal(told.includes(code), false);
  });
});
