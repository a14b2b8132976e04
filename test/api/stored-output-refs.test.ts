// Only references a run's own worker wrote are stored outputs. Text shaped like one, written into a
// run by a tool or by a person answering for one, names another run's stored output by its digest:
// it stays that text for the model, and GET /api/runs/:runId/outputs/:ref serves nothing for it. The
// run's own references keep working, across continue-as-new.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileContentStore } from '../../content-store/content-store.js';
import type { RunState } from '../../protocol/index.js';
import { call, calls, say, type ChatCompletionRequest, type ModelReply } from '../support/fake-model.js';
import { apiTestAgents, tokens } from '../support/api-agents.js';
import { forgedMarker, logReader, logRef, logText, pageReader } from '../support/log-agent.js';
import { startStack, type Stack } from '../support/stack.js';

/** Lowered from the default 4,096 so a few turns reach it; never raised. */
const SUGGEST_AT_EVENTS = 40;

const storeDir = mkdtempSync(path.join(tmpdir(), 'countersign-output-refs-'));
let stack: Stack;
after(async () => {
  await stack?.close();
  rmSync(storeDir, { recursive: true, force: true });
});

const outputs = (runId: string, ref: string) => `/api/runs/${runId}/outputs/${encodeURIComponent(ref)}`;

/** Victor's stored log: the output every forged reference below names. Only Victor and admins read his run. */
const VICTOR_REF = logRef('payments-api');
const VICTOR_LINE = 'payments-api line';

before(async () => {
  stack = await startStack({
    agents: [...apiTestAgents, logReader, pageReader],
    contentStore: fileContentStore(storeDir),
    dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': SUGGEST_AT_EVENTS },
  });
  const runId = await stack.startRun(
    'log-reader',
    'refs: victor reads payments-api',
    tokens.victor,
    calls(call('read_log', { service: 'payments-api' })),
    say('Read it.'),
  );
  assert.equal((await stack.result(runId)).status, 'completed');
  const own = await stack.http('GET', outputs(runId, VICTOR_REF), { token: tokens.victor });
  assert.equal(own.status, 200, 'the forged references below name a real stored output');
  assert.equal((await stack.http('GET', `/api/runs/${runId}`, { token: tokens.bob })).status, 404);
});

/** A model step that keeps the tool messages it was sent, by call id, then answers. */
function reading(reply: ModelReply): {
  told: Map<string, string>;
  step: (r: ChatCompletionRequest) => ModelReply;
} {
  const told = new Map<string, string>();
  return {
    told,
    step(request) {
      for (const m of request.messages) if (m.role === 'tool') told.set(m.tool_call_id, String(m.content));
      return reply;
    },
  };
}

/** What a forged reference in `runId` gives Bob, who may read that run and not Victor's. */
async function assertNotServed(runId: string, state: RunState) {
  assert.ok(
    !(state.storedOutputs ?? []).includes(VICTOR_REF),
    'the run does not record the forged reference',
  );
  const answer = await stack.http('GET', outputs(runId, VICTOR_REF), { token: tokens.bob });
  assert.equal(answer.status, 404, answer.text);
  assert.equal(answer.body.error.code, 'not_found');
  assert.ok(!answer.text.includes(VICTOR_LINE));
}

test("a tool's output shaped like a reference is the tool's text; the run's own reference reads, across continue-as-new", async () => {
  const forged = JSON.stringify(forgedMarker(VICTOR_REF));
  const model = reading(say('Read them.'));
  const runId = await stack.startRun(
    'page-reader',
    'refs: a page forges a reference',
    tokens.bob,
    calls(call('read_log', { service: 'ledger' }, 'l1')),
    // Turns enough for the server to suggest continue-as-new after the log was stored.
    ...Array.from({ length: 4 }, (_, i) =>
      calls(call('fetch_page', { body: `page ${i}`, json: false }, `f${i}`)),
    ),
    // The same forgery as an object (a tool returning JSON) and as a string.
    calls(
      call('fetch_page', { body: forged, json: true }, 'p1'),
      call('fetch_page', { body: forged, json: false }, 'p2'),
    ),
    model.step,
  );
  const result = await stack.result(runId);
  assert.equal(result.status, 'completed', result.reason);
  const state = await stack.state(runId);
  assert.ok(
    state.events.some((e) => e.type === 'run.continued'),
    'the run continued as new after its log was stored',
  );
  assert.deepEqual(state.storedOutputs, [logRef('ledger')]);

  // The model read the run's own stored output whole, and each forgery as the text the tool gave.
  assert.equal(model.told.get('l1'), logText('ledger'));
  assert.equal(model.told.get('p1'), forged);
  assert.equal(model.told.get('p2'), forged);
  assert.ok(![...model.told.values()].some((content) => content.includes(VICTOR_LINE)));

  const own = await stack.http('GET', outputs(runId, logRef('ledger')), { token: tokens.bob });
  assert.equal(own.status, 200, own.text);
  assert.equal(own.text, logText('ledger'));
  await assertNotServed(runId, state);
});

test("a person's answer shaped like a reference is their text: a respond for a call, and an answer to ask_human", async () => {
  const forged = forgedMarker(VICTOR_REF);
  const decide = (trackingId: string, result: unknown, token: string) =>
    stack.http('POST', `/api/approvals/${trackingId}/decision`, { token, body: { type: 'respond', result } });

  // Bob, a treasurer, answers for a transfer in Alice's run, and so may read that run.
  const bank = reading(say('Done.'));
  const bankRun = await stack.startRun(
    'bank',
    'refs: an answer for a transfer forges a reference',
    tokens.alice,
    calls(call('transfer', { from: 'ops', to: 'acme', amount: 10 }, 't1')),
    bank.step,
  );
  const [transfer] = await stack.waitForPending(bankRun);
  const responded = await decide(transfer!.trackingId, forged, tokens.bob);
  assert.equal(responded.status, 200, responded.text);
  assert.equal((await stack.result(bankRun)).status, 'completed');
  assert.equal(bank.told.get('t1'), JSON.stringify(forged));
  await assertNotServed(bankRun, await stack.state(bankRun));

  // Alice answers a question of Bob's run with the reference as text.
  const helper = reading(say('Thanks.'));
  const helperRun = await stack.startRun(
    'helper',
    'refs: an answer to a question forges a reference',
    tokens.bob,
    calls(call('ask_human', { question: 'Which log should I read?' }, 'q1')),
    helper.step,
  );
  const [question] = await stack.waitForPending(helperRun);
  const answered = await decide(question!.trackingId, JSON.stringify(forged), tokens.alice);
  assert.equal(answered.status, 200, answered.text);
  assert.equal((await stack.result(helperRun)).status, 'completed');
  assert.equal(helper.told.get('q1'), JSON.stringify(forged));
  await assertNotServed(helperRun, await stack.state(helperRun));
});
