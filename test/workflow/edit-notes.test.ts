import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, calls, say } from '../support/fake-model.js';
import { analystAgent, bankAgent } from './fixtures/agents.js';
import { startHarness, uniqueInput, type Harness } from './fixtures/harness.js';
import { splitChangeNotes } from '../../protocol/change-notes.js';
import { storedOutput, storedOutputOf } from '../../protocol/stored-output.js';
import { cutFromPlanMessage, editedCallMessage, movedStepMessage } from '../../workflows/tool-messages.js';

const analyst = { id: 'ana', roles: ['analyst'] };

// Told only a result, a model whose call a person changed may propose its original call again.
describe('the model is told what people changed', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  it('says which arguments an edit changed, from what to what, before the result', async () => {
    const input = uniqueInput('edited transfer');
    const conversation = h.fake.script(
      input,
      calls(call('transfer', { from: 'A', to: 'B', amount: 2500 }, 'e1')),
      say('done'),
    );
    const runId = await h.start(bankAgent, input);
    const [view] = await h.waitForPending(runId, 1);
    const memo = 'm'.repeat(300);
    const edited = await h.decide(view!.trackingId, {
      type: 'edit',
      args: { from: 'A', to: 'B', amount: 1200, memo },
    });
    assert.equal(edited.status, 'edited');
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'done' });

    // A long value is cut to 200 characters in the note; the tool itself got all of it.
    assert.equal(
      conversation.toolMessages().get('e1'),
      `(A human reviewer (alice) changed the arguments before this call ran: amount from 2500 to 1200; memo set to "${'m'.repeat(200)}…".) ` +
        JSON.stringify({ transferred: 1200, from: 'A', to: 'B' }),
    );
  });

  it('says which plan steps were cut, moved and edited', async () => {
    const input = uniqueInput('reviewed plan');
    const conversation = h.fake.script(
      input,
      calls(
        call('run_query', { sql: 'select 1' }, 'q1'),
        call('run_query', { sql: 'select 2' }, 'q2'),
        call('run_query', { sql: 'select 3' }, 'q3'),
      ),
      say('analysis done'),
    );
    const runId = await h.start(analystAgent, input);
    const [plan] = await h.waitForPending(runId, 1);
    const edited = await h.decide(
      plan!.trackingId,
      {
        type: 'edit',
        plan: [
          { tool: 'run_query', args: { sql: 'select 3 limit 5' }, toolCallId: 'q3' },
          { tool: 'run_query', args: { sql: 'select 2' }, toolCallId: 'q2' },
        ],
      },
      { approver: analyst },
    );
    assert.equal(edited.status, 'edited');
    await h.result(runId);

    const told = conversation.toolMessages();
    assert.equal(told.get('q1'), cutFromPlanMessage('run_query', undefined));
    assert.equal(
      told.get('q3'),
      '(A human reviewer moved this call from step 3 to step 1 of the plan.) ' +
        '(A human reviewer (ana) changed the arguments before this call ran: sql from "select 3" to "select 3 limit 5".) ' +
        JSON.stringify({ rows: [], sql: 'select 3 limit 5' }),
    );
    // Still second, as proposed, and unchanged: nothing to say but its result.
    assert.equal(told.get('q2'), JSON.stringify({ rows: [], sql: 'select 2' }));
  });
});

describe('reading past the notes', () => {
  it('finds where the notes end, whatever the values in them hold', () => {
    const result = JSON.stringify({ sent: 400 });
    const long = { rows: Array.from({ length: 50 }, (_, i) => ({ note: `row ${i}.) "quoted"` })) };
    const content = movedStepMessage(
      2,
      1,
      editedCallMessage(['lee'], [{ path: '/query', before: long, after: { memo: 'a.) b' } }], result),
    );
    const split = splitChangeNotes(content);
    assert.equal(split.result, result);
    assert.equal(split.notes.length, 2);
    assert.ok(split.notes[1]!.length < 500, 'a long value is cut short in the note');
  });

  it('reads a stored output after a note, as it reads one without', () => {
    const marker = storedOutput('ref-1', 1234);
    const content = editedCallMessage(
      ['lee'],
      [{ path: '/amount', before: 900, after: 400 }],
      JSON.stringify(marker),
    );
    assert.deepEqual(storedOutputOf({ role: 'tool', tool_call_id: 'c1', content }, ['ref-1']), marker);
  });
});
