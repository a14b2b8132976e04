import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { AgUiChat } from '../support/ag-ui-chat.js';
import { startChatApp, type ChatApp } from '../support/ai-chat.js';
import { tokens } from '../support/api-agents.js';
import { chatPeople, tellerBank, transfersMade } from '../support/chat-agents.js';
import { call, calls, say } from '../support/fake-model.js';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;
let app: ChatApp;
before(async () => {
  stack = await startStack({ agents: [tellerBank] });
  app = await startChatApp(stack, [tellerBank], 'teller_bank', chatPeople);
});
after(async () => {
  await app?.close();
  await stack?.close();
});

/** A thread whose first message asks for a transfer Sam may approve himself: its run interrupts. */
async function interrupted(
  input: string,
  amount: number,
  ...answers: Parameters<typeof stack.fake.script>[1][]
) {
  const threadId = randomUUID();
  const runId = `chat-${threadId}-1`;
  const conversation = stack.fake.script(
    input,
    calls(call('transfer', { to: 'ann', amount }, 'c1')),
    ...answers,
  );
  const chat = new AgUiChat(app.url, threadId, 'sam');
  const ending = await chat.say(input);
  assert.equal(ending.outcome, 'interrupt');
  assert.equal(ending.interrupts.length, 1);
  return { chat, runId, conversation, interrupt: ending.interrupts[0]! };
}

const ran = (runId: string) => transfersMade.filter((t) => t.runId === runId);

test('a gated call ends the AG-UI run in an interrupt; a resume with an edit runs the edited call once', async () => {
  const { chat, runId, interrupt } = await interrupted('ag-ui: send 900', 900, say('Sent.'));
  // The interrupt: the approval id binding tracking id and revision, the call, what may change, who must sign.
  assert.equal(interrupt.id, `${runId}.1@1`);
  assert.equal(interrupt.reason, 'tool_call');
  assert.equal(interrupt.toolCallId, `${runId}/call-c1`);
  assert.match(interrupt.message ?? '', /^Send 900 to ann\. Needs teller: 0 of 1/);
  assert.ok(interrupt.expiresAt && Date.parse(interrupt.expiresAt) > Date.now());
  const schema = interrupt.responseSchema as {
    required: string[];
    properties: Record<string, { description?: string }>;
  };
  assert.deepEqual(schema.required, ['approved']);
  assert.deepEqual(Object.keys(schema.properties).sort(), ['approved', 'editedArgs', 'reason']);
  assert.match(schema.properties.editedArgs?.description ?? '', /Only amount may change/);
  const shown = interrupt.metadata?.countersign as Record<string, unknown>;
  assert.deepEqual(shown.args, { to: 'ann', amount: 900 });
  assert.deepEqual(shown.editableFields, ['amount']);
  assert.equal(shown.trackingId, `${runId}.1`);
  assert.equal(shown.revision, 1);
  // The client holds the call with its arguments, and the state says it is asked of Sam.
  const asked = chat.agent.messages.find((message) => message.role === 'assistant');
  assert.deepEqual(asked?.role === 'assistant' ? asked.toolCalls : undefined, [
    {
      id: `${runId}/call-c1`,
      type: 'function',
      function: { name: 'transfer', arguments: '{"to":"ann","amount":900}' },
    },
  ]);
  assert.equal(chat.countersign.approvals[`${runId}.1`]?.state, 'requested');
  assert.equal(chat.countersign.status, 'waiting');
  assert.equal(ran(runId).length, 0, 'nothing ran before the decision');

  const resume = [
    {
      interruptId: interrupt.id,
      status: 'resolved' as const,
      payload: { approved: true, editedArgs: { to: 'ann', amount: 400 }, reason: 'Only 400 this month.' },
    },
  ];
  const ending = await chat.run(resume);
  assert.equal(ending.outcome, 'success');
  assert.deepEqual(ran(runId), [{ runId, to: 'ann', amount: 400 }]);
  const result = chat.agent.messages.find((message) => message.role === 'tool');
  assert.equal(result?.role === 'tool' ? result.toolCallId : undefined, `${runId}/call-c1`);
  assert.deepEqual(JSON.parse(String(result?.content)), { sent: 400, to: 'ann' });
  assert.deepEqual(result?.metadata, { countersign: { outcome: 'output' } });
  assert.equal(chat.agent.messages.at(-1)?.content, 'Sent.');
  const decided = chat.countersign.approvals[`${runId}.1`]!;
  assert.equal(decided.state, 'decided');
  assert.equal(decided.status, 'edited');
  assert.deepEqual(decided.diff, [{ path: '/amount', before: 900, after: 400 }]);
  assert.equal(chat.countersign.status, 'completed');
  const state = await stack.state(runId);
  assert.deepEqual(
    state.events
      .filter((event) => event.type === 'approval.decided')
      .map(({ actor, decision, message }) => ({ actor, decision, message })),
    [{ actor: 'sam', decision: 'edit', message: 'Only 400 this month.' }],
  );

  // The same resume sent again (a client that kept its messages): taken once, nothing refused or resent.
  const replay = new AgUiChat(app.url, chat.agent.threadId, 'sam');
  replay.agent.setMessages(chat.agent.messages);
  assert.deepEqual(await replay.run(resume), { outcome: 'success' });
  assert.deepEqual(ran(runId), [{ runId, to: 'ann', amount: 400 }]);
  assert.deepEqual(
    (await replay.checkWire()).map((event) => event.type),
    ['RUN_STARTED', 'STATE_SNAPSHOT', 'STATE_SNAPSHOT', 'RUN_FINISHED'],
  );

  // Two AG-UI runs of one turn: the call was sent once, its result once, each run framed.
  const sent = await chat.checkWire();
  const count = (type: string) => sent.filter((event) => event.type === type).length;
  assert.equal(count('TOOL_CALL_START'), 1);
  assert.equal(count('TOOL_CALL_RESULT'), 1);
  assert.equal(count('RUN_STARTED'), 2);
  assert.equal(count('RUN_FINISHED'), 2);
  assert.deepEqual(
    sent.filter((event) => event.type === 'RUN_STARTED').map((event) => event.threadId),
    [chat.agent.threadId, chat.agent.threadId],
  );
});

test('a rejection is not run, and the model reads its reason', async () => {
  const { chat, runId, interrupt, conversation } = await interrupted('ag-ui: send 700', 700, (request) =>
    say(`Not sent: ${String(request.messages.at(-1)?.content)}`),
  );
  const ending = await chat.run([
    {
      interruptId: interrupt.id,
      status: 'resolved',
      payload: { approved: false, reason: 'Ann is not a payee yet' },
    },
  ]);
  assert.equal(ending.outcome, 'success');
  assert.equal(ran(runId).length, 0);
  assert.match(conversation.toolMessages().get('c1') ?? '', /Ann is not a payee yet/);
  const result = chat.agent.messages.find((message) => message.role === 'tool');
  assert.deepEqual(result?.metadata, { countersign: { outcome: 'denied' } });
  assert.match(String(result?.content), /Ann is not a payee yet/);
  assert.match(String(chat.agent.messages.at(-1)?.content), /^Not sent: .*Ann is not a payee yet/);
  const decided = chat.countersign.approvals[`${runId}.1`]!;
  assert.equal(decided.status, 'rejected');
  assert.equal(decided.message, 'Ann is not a payee yet');
  await chat.checkWire();
});

test('a resume from someone without the role is refused in an event the client sees, and the call keeps waiting', async () => {
  const { chat, runId, interrupt } = await interrupted('ag-ui: send 300', 300, say('Sent.'));
  // Sam is no longer a teller when he answers (his directory entry changed since he was shown it).
  app.directory.set('sam', { id: 'sam', roles: [] });
  try {
    const resumed = chat.run([
      { interruptId: interrupt.id, status: 'resolved', payload: { approved: true } },
    ]);
    const refused = await chat.until(
      (events) => events.find((event) => event.type === 'CUSTOM' && event.name === 'countersign.refused'),
      'the refusal',
    );
    const value = refused.value as { approvalId: string; code: string; reason: string };
    assert.equal(value.approvalId, interrupt.id);
    assert.equal(value.code, 'role_not_allowed');
    assert.match(value.reason, /teller/);
    assert.equal(chat.countersign.refused[interrupt.id]?.code, 'role_not_allowed');
    // No longer his to decide: waiting for a teller, the AG-UI run still open.
    await waitForState(chat, () => chat.countersign.approvals[`${runId}.1`]?.state === 'waiting');
    const state = await stack.state(runId);
    assert.equal(state.status, 'waiting');
    assert.deepEqual(state.pending[0]!.approvals, []);
    assert.equal(ran(runId).length, 0);
    // Cancelled elsewhere: the open AG-UI run ends, cancelled.
    await stack.client.workflow.getHandle(runId).cancel();
    assert.deepEqual(await resumed, { outcome: 'cancelled' });
  } finally {
    app.directory.set('sam', chatPeople[0]!);
  }
  await chat.checkWire();
});

test('a call that needs another role shows as waiting in the state, and the run goes on when they decide through REST', async () => {
  const threadId = randomUUID();
  const runId = `chat-${threadId}-1`;
  stack.fake.script(
    'ag-ui: send 20000',
    calls(call('transfer', { to: 'ann', amount: 20_000 }, 'c1')),
    say('Sent 20000.'),
  );
  const chat = new AgUiChat(app.url, threadId, 'sam');
  const running = chat.say('ag-ui: send 20000');
  await waitForState(chat, () => chat.countersign.approvals[`${runId}.1`]?.state === 'waiting');
  const waiting = chat.countersign.approvals[`${runId}.1`]!;
  assert.deepEqual(waiting.needs, ['treasurer: 0 of 1 (large transfer: transfer: amount over 10000)']);
  const answer = await stack.http('POST', `/api/approvals/${runId}.1/decision`, {
    token: tokens.bob,
    body: { type: 'approve' },
  });
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual(await running, { outcome: 'success' });
  assert.equal(chat.agent.messages.at(-1)?.content, 'Sent 20000.');
  assert.deepEqual(chat.countersign.approvals[`${runId}.1`]?.by, ['bob']);
  assert.deepEqual(ran(runId), [{ runId, to: 'ann', amount: 20_000 }]);
  const sent = await chat.checkWire();
  assert.equal(sent.filter((event) => event.type === 'RUN_STARTED').length, 1, 'one AG-UI run, no interrupt');
});

test("a thread's next message is its next turn, read from the first turn's run, each call named under its run", async () => {
  const threadId = randomUUID();
  const [first, second] = [`chat-${threadId}-1`, `chat-${threadId}-2`];
  const conversation = stack.fake.script(
    'ag-ui: send 100',
    calls(call('transfer', { to: 'ann', amount: 100 }, 'c1')),
    say('Sent 100.'),
    // The model gives the next turn's call the same id, as some do: each is named under its run.
    calls(call('transfer', { to: 'ann', amount: 200 }, 'c1')),
  );
  const chat = new AgUiChat(app.url, threadId, 'sam');
  const asked = await chat.say('ag-ui: send 100');
  assert.equal(asked.outcome, 'interrupt');
  const approve = (id: string) => [
    { interruptId: id, status: 'resolved' as const, payload: { approved: true } },
  ];
  assert.deepEqual(await chat.run(approve(asked.interrupts[0]!.id)), { outcome: 'success' });

  const again = await chat.say('And 200 more.');
  assert.equal(again.outcome, 'interrupt');
  assert.equal(again.interrupts[0]!.id, `${second}.1@1`);
  assert.equal(chat.countersign.runId, second);
  assert.deepEqual(
    conversation.requests
      .at(-1)!
      .messages.filter((m) => m.role === 'user')
      .map((m) => m.content),
    ['ag-ui: send 100', 'And 200 more.'],
  );
  // Each call under its own run's id, with its own arguments.
  const held = chat.agent.messages.flatMap((message) =>
    message.role === 'assistant' ? (message.toolCalls ?? []).map((c) => [c.id, c.function.arguments]) : [],
  );
  assert.equal(held.length, 2);
  assert.deepEqual(held[0], [`${first}/call-c1`, '{"to":"ann","amount":100}']);
  assert.ok(held[1]![0]!.startsWith(`${second}/call-`), held[1]![0]);
  assert.equal(held[1]![1], '{"to":"ann","amount":200}');
  assert.equal(again.interrupts[0]!.toolCallId, held[1]![0]);
  await chat.checkWire();
  await stack.client.workflow.getHandle(second).cancel();
});

test('input the thread cannot take ends the AG-UI run in RUN_ERROR with a stable code', async () => {
  // A second message on a thread that never had a first.
  const skipped = new AgUiChat(app.url, randomUUID(), 'sam');
  skipped.agent.addMessage({ id: randomUUID(), role: 'user', content: 'first' });
  const missing = await skipped.say('second');
  assert.equal(missing.outcome === 'error' ? missing.code : missing.outcome, 'chat_turn_missing');
  assert.deepEqual(
    (await skipped.checkWire()).map((event) => event.type),
    ['RUN_ERROR'],
  );
  // No user message at all.
  const empty = new AgUiChat(app.url, randomUUID(), 'sam');
  const ending = await empty.run();
  assert.equal(ending.outcome === 'error' ? ending.code : ending.outcome, 'invalid_request');
  await empty.checkWire();
});

async function waitForState(chat: AgUiChat, holds: () => boolean) {
  await chat.until(() => (holds() ? true : undefined), 'the state');
}
