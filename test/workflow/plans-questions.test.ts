import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, calls, say } from '../support/fake-model.js';
import { analystAgent, bankAgent, executionsOf } from './fixtures/agents.js';
import { startHarness, uniqueInput, type Harness } from './fixtures/harness.js';

const analyst = { id: 'ana', roles: ['analyst'] };

describe('plans, questions and result review', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  it('presents a turn as one plan that a human reorders and extends before anything runs', async () => {
    const input = uniqueInput('analysis');
    const conversation = h.fake.script(
      input,
      calls(call('run_query', { sql: 'select 1' }, 'q1'), call('run_query', { sql: 'select 2' }, 'q2')),
      say('analysis done'),
    );
    const runId = await h.start(analystAgent, input);
    const [plan] = await h.waitForPending(runId, 1);
    assert.equal(plan!.kind, 'plan');
    assert.deepEqual(plan!.approvers, ['analyst']);
    assert.deepEqual(plan!.plan, [
      { tool: 'run_query', args: { sql: 'select 1' }, toolCallId: 'q1' },
      { tool: 'run_query', args: { sql: 'select 2' }, toolCallId: 'q2' },
    ]);
    assert.equal(executionsOf(runId).length, 0);

    const unknownTool = await h.decide(
      plan!.trackingId,
      { type: 'edit', plan: [{ tool: 'drop_tables', args: {} }] },
      { approver: analyst },
    );
    assert.equal(unknownTool.code, 'invalid_arguments');
    assert.deepEqual(
      unknownTool.fieldErrors?.map((e) => e.path),
      ['/plan/0/tool'],
    );
    const badArgs = await h.decide(
      plan!.trackingId,
      { type: 'edit', plan: [{ tool: 'run_query', args: { sql: '' }, toolCallId: 'q2' }] },
      { approver: analyst },
    );
    assert.deepEqual(
      badArgs.fieldErrors?.map((e) => e.path),
      ['/plan/0/args/sql'],
    );

    const edited = await h.decide(
      plan!.trackingId,
      {
        type: 'edit',
        plan: [
          { tool: 'run_query', args: { sql: 'select 2' }, toolCallId: 'q2' },
          { tool: 'lookup_balance', args: { account: 'ops' } },
          { tool: 'run_query', args: { sql: 'select 1 limit 10' }, toolCallId: 'q1' },
        ],
      },
      { approver: analyst },
    );
    assert.equal(edited.status, 'edited');
    await h.result(runId);

    // The approved order, with the inserted step and the edited query.
    assert.deepEqual(
      executionsOf(runId).map((e) => [e.tool, e.args]),
      [
        ['run_query', { sql: 'select 2' }],
        ['lookup_balance', { account: 'ops' }],
        ['run_query', { sql: 'select 1 limit 10' }],
      ],
    );
    const told = conversation.toolMessages();
    assert.match(told.get('added-1')!, /added this call/);
    assert.match(told.get('q1')!, /limit 10/);
    const last = conversation.requests.at(-1)!;
    const assistant = last.messages.find((m) => m.role === 'assistant');
    assert.deepEqual(assistant?.role === 'assistant' ? assistant.tool_calls?.map((c) => c.id) : [], [
      'q1',
      'q2',
      'added-1',
    ]);
    await h.saveHistory('plan-review', runId);
  });

  it('asks a human through ask_human and hands the validated answer back', async () => {
    const input = uniqueInput('which region');
    const conversation = h.fake.script(
      input,
      calls(call('ask_human', { question: 'Which region?', choices: ['eu', 'us'] }, 'a1')),
      say('eu it is'),
    );
    const runId = await h.start(analystAgent, input, 'rita');
    const [question] = await h.waitForPending(runId, 1);
    assert.equal(question!.kind, 'question');
    assert.equal(question!.question, 'Which region?');
    assert.deepEqual(question!.allowedDecisions, ['respond', 'reject']);

    const wrong = await h.decide(question!.trackingId, { type: 'respond', result: 'mars' });
    assert.equal(wrong.code, 'invalid_arguments');
    // The requester may answer their own run's questions.
    const answer = await h.decide(
      question!.trackingId,
      { type: 'respond', result: 'eu' },
      { approver: { id: 'rita', roles: ['admin'] } },
    );
    assert.equal(answer.status, 'responded');
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'eu it is' });
    assert.equal(conversation.toolMessages().get('a1'), 'eu');
    await h.saveHistory('ask-human', runId);
  });

  it("lets a human answer in a tool's place, checked against the tool's result schema", async () => {
    const input = uniqueInput('quote');
    const conversation = h.fake.script(
      input,
      calls(call('quote_price', { product: 'custom desk' }, 'qp')),
      say('quoted'),
    );
    const runId = await h.start(bankAgent, input);
    const [view] = await h.waitForPending(runId, 1);
    const wrong = await h.decide(view!.trackingId, {
      type: 'respond',
      result: { price: -1, currency: 'EUR' },
    });
    assert.equal(wrong.code, 'invalid_arguments');
    assert.deepEqual(
      wrong.fieldErrors?.map((e) => e.path),
      ['/result/price'],
    );
    const answered = await h.decide(view!.trackingId, {
      type: 'respond',
      result: { price: 450, currency: 'EUR' },
    });
    assert.equal(answered.status, 'responded');
    await h.result(runId);
    assert.equal(executionsOf(runId).length, 0);
    assert.equal(conversation.toolMessages().get('qp'), '{"price":450,"currency":"EUR"}');
    await h.saveHistory('respond', runId);
  });

  it('holds a tool result for review; the model sees the edited result', async () => {
    const input = uniqueInput('report');
    const conversation = h.fake.script(
      input,
      calls(call('fetch_report', { name: 'q3' }, 'f1')),
      say('reported'),
    );
    const runId = await h.start(bankAgent, input);
    const [review] = await h.waitForPending(runId, 1);
    assert.equal(review!.kind, 'result');
    assert.deepEqual(review!.result, { name: 'q3', revenue: 1234, secret: 'internal-only' });
    assert.equal(executionsOf(runId).length, 1);
    assert.equal(conversation.requests.length, 1);

    const edited = await h.decide(review!.trackingId, { type: 'edit', args: { name: 'q3', revenue: 1234 } });
    assert.equal(edited.status, 'edited');
    await h.result(runId);
    assert.equal(conversation.toolMessages().get('f1'), '{"name":"q3","revenue":1234}');
    const state = await h.state(runId);
    assert.deepEqual(state.approvals[0]!.outcome?.diff, [{ path: '/secret', before: 'internal-only' }]);
    await h.saveHistory('review-result', runId);
  });
});
