// A run long enough that the server suggests continue-as-new, seen through the API: one run in the
// lists, one event log and one audit trail across its executions, streams that follow it, and
// tracking ids issued before a continuation still answering after it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../define/index.js';
import type { RunEvent } from '../../protocol/index.js';
import { call, calls, say } from '../support/fake-model.js';
import { apiTestAgents, tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';
import { openSse } from './sse-reader.js';

/** Lowered from the default 4,096 so a dozen turns reach it; never raised. */
const SUGGEST_AT_EVENTS = 40;
const TURNS = 12;

const readMeter = defineTool({
  name: 'read_meter',
  description: 'Read a meter.',
  parameters: z.object({ meter: z.string() }),
  safe: true,
  async execute(args) {
    return { meter: args.meter, reading: 42 };
  },
});
const bill = defineTool({
  name: 'bill',
  description: 'Bill a customer.',
  parameters: z.object({ customer: z.string(), amount: z.number().positive() }),
  approval: {
    decisions: ['approve', 'reject'],
    approvers: ['admin'],
    description: 'Bill {{customer}} {{amount}}',
  },
  async execute(args) {
    return { billed: args.amount };
  },
});
const metering = defineAgent({
  name: 'metering',
  description: 'Reads meters and bills.',
  instructions: 'You read meters.',
  tools: [readMeter, bill],
});

let stack: Stack;
before(async () => {
  stack = await startStack({
    agents: [...apiTestAgents, metering],
    dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': SUGGEST_AT_EVENTS },
  });
});
after(async () => {
  await stack.close();
});

const BILLED_AT = [2, TURNS - 2];

test('a run that continues as new is one run to every reader, and its tracking ids keep working', async () => {
  const input = 'continuation: meters';
  stack.fake.script(
    input,
    ...Array.from({ length: TURNS }, (_, i) =>
      BILLED_AT.includes(i)
        ? calls(call('bill', { customer: `c${i}`, amount: 10 + i }, `t${i}`))
        : calls(call('read_meter', { meter: `m${i}` }, `t${i}`)),
    ),
    say('Read and billed.'),
  );
  const everything = await openSse(`${stack.url}/api/events`, tokens.alice);
  const started = await stack.http('POST', '/api/runs', {
    token: tokens.victor,
    body: { agent: 'metering', input },
  });
  assert.equal(started.status, 201, started.text);
  const runId: string = started.body.runId;
  // Its own stream, from the start: it must follow the run into each next execution.
  const own = await openSse(`${stack.url}/api/runs/${runId}/events`, tokens.alice);

  const approve = async () => {
    const [pending] = await stack.waitForPending(runId);
    const decided = await stack.http('POST', `/api/approvals/${pending!.trackingId}/decision`, {
      token: tokens.alice,
      body: { type: 'approve' },
    });
    assert.ok([200, 202].includes(decided.status), decided.text);
    return pending!.trackingId;
  };
  const first = await approve();
  // The second bill is asked for by a later execution: its request reaches the run's stream live,
  // while the run waits.
  const [waiting] = await stack.waitForPending(runId);
  const live = await own.until(
    (m) => m.event === 'approval.requested' && (m.data as RunEvent).trackingId === waiting!.trackingId,
  );
  assert.ok(
    live.some((m) => m.event === 'run.continued'),
    'the stream followed the run into its next execution',
  );
  const second = await approve();
  assert.equal(second, waiting!.trackingId);
  assert.notEqual(second, first);
  assert.equal((await stack.result(runId)).status, 'completed');

  const ownEvents = [...live, ...(await own.until((m) => m.event === 'run.finished'))].map(
    (m) => m.data as RunEvent,
  );
  own.close();
  const ids = ownEvents.map((e) => e.id);
  assert.deepEqual(
    ids,
    ids.map((_, i) => i + 1),
    'the run stream: every event once, in order',
  );
  const continued = ownEvents.filter((e) => e.type === 'run.continued').length;
  assert.ok(continued >= 2, `${continued} continuations`);

  const fed = (
    await everything.until((m) => m.event === 'run.finished' && (m.data as RunEvent).runId === runId)
  )
    .map((m) => m.data as RunEvent)
    .filter((e) => e.runId === runId);
  everything.close();
  assert.deepEqual(
    [...new Set(fed.map((e) => e.id))].sort((a, b) => a - b),
    ids,
    'the inbox stream: every event',
  );

  // The run view and the approvals read as one run.
  const detail = (await stack.http('GET', `/api/runs/${runId}`, { token: tokens.alice })).body;
  assert.equal(detail.turns, TURNS + 1);
  assert.equal(detail.transcript.length, 2 + TURNS * 2 + 1);
  assert.deepEqual(
    detail.audit.filter((e: RunEvent) => e.type === 'approval.decided').map((e: RunEvent) => e.trackingId),
    [first, second],
  );
  const firstView = await stack.http('GET', `/api/approvals/${first}`, { token: tokens.alice });
  assert.equal(firstView.status, 200);
  assert.equal(firstView.body.status, 'approved');
  const late = await stack.http('POST', `/api/approvals/${first}/decision`, {
    token: tokens.alice,
    body: { type: 'reject', message: 'too late' },
  });
  assert.equal(late.status, 409, late.text);

  // Listed once, as the execution that finished, whatever the list's lag.
  const listed = await stack.listUntil('/api/runs?agent=metering', tokens.alice, (body) =>
    body.runs.some((r: { runId: string; status: string }) => r.runId === runId && r.status === 'completed'),
  );
  assert.equal(listed.runs.filter((r: { runId: string }) => r.runId === runId).length, 1);
});
