import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { call, calls, say } from '../support/fake-model.js';
import { dataPart, startChatApp, textOf, toolPart, type ChatApp } from '../support/ai-chat.js';
import { chatPeople, tellerBank, transfersMade } from '../support/chat-agents.js';
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

/** A chat whose first message asks for a transfer Sam may approve himself, shown for approval. */
async function askedToApprove(
  input: string,
  amount: number,
  ...answers: Parameters<typeof stack.fake.script>[1][]
) {
  const chatId = randomUUID();
  const conversation = stack.fake.script(
    input,
    calls(call('transfer', { to: 'ann', amount }, 'c1')),
    ...answers,
  );
  const chat = app.chat(chatId, 'sam');
  await chat.sendMessage({ text: input });
  await chat.settled();
  const runId = `chat-${chatId}-1`;
  const message = chat.lastMessage!;
  const part = toolPart(message, 'c1');
  assert.equal(part?.state, 'approval-requested');
  return { chat, chatId, runId, conversation, approvalId: part.approval.id, message };
}

test('a gated call is shown for approval, approved in the chat, and its output and the answer stream in', async () => {
  const { chat, runId, approvalId, message } = await askedToApprove(
    'chat: send 500',
    500,
    say('Sent 500 to Ann.'),
  );
  // The assistant message is the turn's run; the call with its input; the approval names its revision.
  assert.equal(message.id, runId);
  assert.equal(message.role, 'assistant');
  assert.deepEqual(toolPart(message, 'c1')?.input, { to: 'ann', amount: 500 });
  assert.equal(approvalId, `${runId}.1@1`);
  const asked = dataPart(message, 'data-countersign-approval', `${runId}.1`);
  assert.equal(asked?.data.state, 'requested');
  assert.equal(asked?.data.description, 'Send 500 to ann');
  assert.equal(transfersMade.filter((t) => t.runId === runId).length, 0, 'nothing ran before the decision');

  await chat.addToolApprovalResponse({ id: approvalId, approved: true });
  const done = await chat.until(
    (messages) => (textOf(messages.at(-1)) === 'Sent 500 to Ann.' ? messages.at(-1) : undefined),
    'the final answer',
  );
  await chat.settled();
  // The response continued the same message: one assistant message, one tool part, two steps.
  assert.equal(chat.messages.length, 2);
  assert.equal(done.id, runId);
  assert.equal(done.parts.filter((part) => part.type === 'tool-transfer').length, 1);
  assert.equal(done.parts.filter((part) => part.type === 'step-start').length, 2);
  const ran = toolPart(done, 'c1');
  assert.equal(ran?.state, 'output-available');
  assert.deepEqual(ran?.output, { sent: 500, to: 'ann' });
  const decided = dataPart(done, 'data-countersign-approval', `${runId}.1`);
  assert.equal(decided?.data.state, 'decided');
  assert.equal(decided?.data.status, 'approved');
  assert.deepEqual(decided?.data.by, ['sam']);
  assert.equal(dataPart(done, 'data-countersign-run', runId)?.data.status, 'completed');
  assert.deepEqual(
    transfersMade.filter((t) => t.runId === runId),
    [{ runId, to: 'ann', amount: 500 }],
  );
  // Two POSTs (the message, the answer), as the default transport sends them.
  assert.deepEqual(chat.requests, ['POST /chat', 'POST /chat']);
  const state = await stack.state(runId);
  assert.equal(state.approvals[0]!.outcome?.by[0], 'sam');
});

test('a call denied in the chat is not run, and the model reads the reason', async () => {
  const { chat, runId, approvalId, conversation } = await askedToApprove('chat: send 700', 700, (request) =>
    say(`Not sent: ${String(request.messages.at(-1)?.content)}`),
  );
  await chat.addToolApprovalResponse({ id: approvalId, approved: false, reason: 'Ann is not a payee yet' });
  const done = await chat.until(
    (messages) => (textOf(messages.at(-1)).startsWith('Not sent') ? messages.at(-1) : undefined),
    'the answer to the denial',
  );
  await chat.settled();
  assert.equal(toolPart(done, 'c1')?.state, 'output-denied');
  const decided = dataPart(done, 'data-countersign-approval', `${runId}.1`);
  assert.equal(decided?.data.status, 'rejected');
  assert.equal(decided?.data.message, 'Ann is not a payee yet');
  // The model was told, in the tool message, why the call did not run.
  assert.match(conversation.toolMessages().get('c1') ?? '', /Ann is not a payee yet/);
  assert.match(textOf(done), /Ann is not a payee yet/);
  assert.equal(transfersMade.filter((t) => t.runId === runId).length, 0);
});

test('an edit goes through the countersign extension, and the chat shows it as an edit', async () => {
  const { chat, runId, approvalId } = await askedToApprove('chat: send 900', 900, say('Sent.'));
  await chat.addToolApprovalResponse({
    id: approvalId,
    approved: true,
    reason: 'Only 400 this month.',
    options: { body: { countersign: { edits: { [approvalId]: { args: { to: 'ann', amount: 400 } } } } } },
  });
  const done = await chat.until(
    (messages) => (textOf(messages.at(-1)) === 'Sent.' ? messages.at(-1) : undefined),
    'the final answer',
  );
  await chat.settled();
  const ran = toolPart(done, 'c1');
  assert.equal(ran?.state, 'output-available');
  assert.deepEqual(ran?.input, { to: 'ann', amount: 400 }, 'the call shows the arguments it ran with');
  assert.deepEqual(ran?.output, { sent: 400, to: 'ann' });
  const decided = dataPart(done, 'data-countersign-approval', `${runId}.1`);
  assert.equal(decided?.data.status, 'edited');
  assert.deepEqual(decided?.data.diff, [{ path: '/amount', before: 900, after: 400 }]);
  assert.deepEqual(
    (decided?.data.decisions as { actor: string; decision: string; message: string; channel: string }[]).map(
      ({ actor, decision, message, channel }) => ({ actor, decision, message, channel }),
    ),
    [{ actor: 'sam', decision: 'edit', message: 'Only 400 this month.', channel: 'chat' }],
  );
  assert.deepEqual(
    transfersMade.filter((t) => t.runId === runId),
    [{ runId, to: 'ann', amount: 400 }],
  );
});

test('an approval from someone without the role is shown refused with the reason, and the run still waits', async () => {
  const { chat, runId, approvalId } = await askedToApprove('chat: send 300', 300, say('Sent.'));
  // Sam is no longer a teller when he answers (his directory entry changed since he was shown it).
  app.directory.set('sam', { id: 'sam', roles: [] });
  try {
    await chat.addToolApprovalResponse({ id: approvalId, approved: true });
    const refused = await chat.until(
      (messages) => dataPart(messages.at(-1), 'data-countersign-refused', approvalId),
      'the refusal in the stream',
    );
    assert.equal(refused.data.code, 'role_not_allowed');
    assert.match(String(refused.data.reason), /teller/);
    // No longer his to decide: shown as waiting for a teller, the stream still open.
    const waiting = await chat.until((messages) => {
      const part = dataPart(messages.at(-1), 'data-countersign-approval', `${runId}.1`);
      return part?.data.state === 'waiting' ? part : undefined;
    }, 'the approval waiting for others');
    assert.deepEqual(
      (waiting.data.requirements as { roles: string[] }[]).map((r) => r.roles),
      [['teller']],
    );
    assert.equal(toolPart(chat.lastMessage, 'c1')?.state, 'input-available');
    assert.equal(chat.status, 'streaming');
    const state = await stack.state(runId);
    assert.equal(state.status, 'waiting');
    assert.equal(state.pending.length, 1);
    assert.deepEqual(state.pending[0]!.approvals, []);
    assert.equal(transfersMade.filter((t) => t.runId === runId).length, 0);
  } finally {
    app.directory.set('sam', chatPeople[0]!);
    await chat.stop();
    await stack.client.workflow.getHandle(runId).cancel();
  }
});
