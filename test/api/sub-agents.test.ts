import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { ApprovalView, RunEvent, RunState } from '../../protocol/index.js';
import { AgUiChat } from '../support/ag-ui-chat.js';
import { dataPart, startChatApp, textOf, toolPart } from '../support/ai-chat.js';
import { call, calls, say } from '../support/fake-model.js';
import { startStack, type Stack } from '../support/stack.js';
import {
  dispatch,
  pinsReceived,
  subAgentApprovers,
  subAgentTokens as tokens,
} from '../support/sub-agent-fixtures.js';
import { waitFor } from '../support/wait-for.js';
import { openSse } from './sse-reader.js';

let stack: Stack;
before(async () => {
  // The API and the worker are given the root agent only: its sub-agent comes with it.
  stack = await startStack({ agents: [dispatch], approvers: subAgentApprovers });
});
after(async () => {
  await stack?.close();
});

/** Sam asks dispatch for a payment; payments' transfer waits for a treasurer. */
async function paymentRun(label: string) {
  const suffix = randomUUID().slice(0, 8);
  const task = `Send 75 to ann [${suffix}]`;
  stack.fake.script(task, calls(call('transfer', { to: 'ann', amount: 75 }, 't1')), say('Sent 75 to ann.'));
  const runId = await stack.startRun(
    'dispatch',
    `${label} [${suffix}]`,
    tokens.sam,
    calls(call('payments', { task }, 'c1')),
    say('Payments paid ann.'),
  );
  return { runId, childRunId: `${runId}--c1` };
}

/** The run as GET /api/runs/:runId shows it to `token`, once `shows` holds. */
const runView = (runId: string, token: string, shows: (run: RunState) => boolean) =>
  waitFor(async () => {
    const answer = await stack.http<RunState>('GET', `/api/runs/${runId}`, { token });
    return answer.status === 200 && shows(answer.body) ? answer.body : undefined;
  }, `run ${runId} to show what the test waits for`);

const chainOf = (approval: ApprovalView) => [...(approval.chain?.agents ?? []), approval.tool].join(' → ');

test("a sub-agent's approval shows in the root's view and the inbox with its chain, and is decided there by the sub-agent's rules", async () => {
  const { runId, childRunId } = await paymentRun('pay ann');
  // A treasurer decides none of dispatch's own tools, but reads its runs: its sub-agent's are theirs.
  const root = await runView(runId, tokens.bob, (run) => run.pending.length === 1);
  const [approval] = root.pending;
  assert.equal(chainOf(approval!), 'dispatch → payments → transfer');
  assert.equal(approval!.chain?.rootRunId, runId);
  assert.equal(approval!.runId, childRunId);
  assert.equal(root.status, 'waiting');

  // The inbox lists it once, from the sub-agent's run, with the same chain.
  const inbox = await stack.listUntil<{ approvals: ApprovalView[] }>(
    '/api/approvals?status=pending',
    tokens.bob,
    (body) => body.approvals.some((a) => a.trackingId === approval!.trackingId),
  );
  const listed = inbox.approvals.filter((a) => a.trackingId === approval!.trackingId);
  assert.equal(listed.length, 1);
  assert.equal(chainOf(listed[0]!), 'dispatch → payments → transfer');

  // The root's event stream tells of it, with its chain, and of its end.
  const stream = await openSse(`${stack.url}/api/runs/${runId}/events`, tokens.bob);
  const about = (type: string) => (m: { event: string; data: unknown }) =>
    m.event === type && (m.data as RunEvent).trackingId === approval!.trackingId;
  const requested = (await stream.until(about('approval.requested'))).at(-1)!.data as RunEvent;
  assert.equal(requested.runId, runId);
  assert.deepEqual(requested.data, {
    runId: childRunId,
    kind: 'call',
    chain: ['dispatch', 'payments'],
    via: childRunId,
  });

  // An operator decides dispatch's own tool, not payments' transfer: refused, by the sub-agent's rule.
  const operator = await stack.http('POST', `/api/approvals/${approval!.trackingId}/decision`, {
    token: tokens.olive,
    body: { type: 'approve' },
  });
  assert.equal(operator.status, 403, operator.text);
  assert.equal(operator.body.error.code, 'role_not_allowed');
  assert.match(operator.body.error.message, /treasurer/);

  const treasurer = await stack.http('POST', `/api/approvals/${approval!.trackingId}/decision`, {
    token: tokens.bob,
    body: { type: 'approve' },
  });
  assert.equal(treasurer.status, 200, treasurer.text);
  assert.equal(treasurer.body.outcome.accepted, true);
  await stream.until(about('approval.settled'));
  stream.close();

  const output = await stack.result(runId);
  assert.equal(output.status, 'completed');
  assert.equal(output.output, 'Payments paid ann.');
  const child = await stack.http<RunState>('GET', `/api/runs/${childRunId}`, { token: tokens.sam });
  assert.equal(child.status, 200, 'the requester reads the sub-agent run made for them');
  assert.equal(child.body.approvals[0]?.outcome?.by[0], 'bob');
});

test("cancelling the root through the API cancels the sub-agent's run, which records who did", async () => {
  const { runId, childRunId } = await paymentRun('pay ann, then cancel');
  await runView(runId, tokens.sam, (run) => run.pending.length === 1);
  const cancel = await stack.http('POST', `/api/runs/${runId}/cancel`, { token: tokens.sam });
  assert.equal(cancel.status, 202);
  assert.equal((await stack.result(runId)).status, 'cancelled');
  const child = await stack.result(childRunId);
  assert.equal(child.status, 'cancelled');
  const cancelled = child.state?.events.find((e) => e.type === 'run.cancelled');
  assert.deepEqual([cancelled?.actor, cancelled?.channel], ['sam', 'api']);
  assert.equal(child.state?.approvals[0]?.status, 'cancelled');
});

test("pausing the root through the API pauses the sub-agent's run; resuming resumes it", async () => {
  const { runId, childRunId } = await paymentRun('pay ann, paused');
  await runView(runId, tokens.sam, (run) => run.pending.length === 1);
  const pause = await stack.http('POST', `/api/runs/${runId}/pause`, { token: tokens.sam, body: {} });
  assert.equal(pause.status, 202, pause.text);
  const paused = await runView(childRunId, tokens.sam, (run) => run.status === 'paused');
  assert.equal(paused.events.find((e) => e.type === 'run.paused')?.actor, 'sam');
  const resume = await stack.http('POST', `/api/runs/${runId}/resume`, { token: tokens.sam, body: {} });
  assert.equal(resume.status, 202, resume.text);
  await runView(childRunId, tokens.sam, (run) => run.status === 'waiting');
  const [approval] = (await stack.state(runId)).pending;
  const approve = await stack.http('POST', `/api/approvals/${approval!.trackingId}/decision`, {
    token: tokens.bob,
    body: { type: 'approve' },
  });
  assert.equal(approve.status, 200, approve.text);
  assert.equal((await stack.result(runId)).status, 'completed');
});

test("a secret a sub-agent's tool needs is asked at the root, with its chain, and reaches only that tool", async () => {
  const suffix = randomUUID().slice(0, 8);
  const task = `Fetch the May statement [${suffix}]`;
  stack.fake.script(task, calls(call('statement', { month: 'May' }, 's1')), say('Balance 1200.'));
  const runId = await stack.startRun(
    'dispatch',
    `statement [${suffix}]`,
    tokens.sam,
    calls(call('payments', { task }, 'c1')),
    say('The balance is 1200.'),
  );
  const root = await runView(runId, tokens.bob, (run) => run.pending.length === 1);
  const [asked] = root.pending;
  assert.equal(asked!.kind, 'secret');
  assert.equal(chainOf(asked!), 'dispatch → payments → statement');
  const supplied = await stack.http('POST', `/api/approvals/${asked!.trackingId}/decision`, {
    token: tokens.bob,
    body: { type: 'respond', secret: `pin-${suffix}` },
  });
  assert.equal(supplied.status, 200, supplied.text);
  const output = await stack.result(runId);
  assert.equal(output.status, 'completed');
  assert.deepEqual(
    pinsReceived.filter((p) => p.runId === asked!.runId).map((p) => p.pin),
    [`pin-${suffix}`],
  );
  assert.ok(!JSON.stringify(output).includes(`pin-${suffix}`), "the root's result never holds it");
});

test("in a chat of the root run, a sub-agent's approval is asked at the call of the sub-agent, with its chain, and decided there", async () => {
  const app = await startChatApp(stack, [dispatch], 'dispatch', [{ id: 'bob', roles: ['treasurer'] }]);
  try {
    const chatId = randomUUID();
    const task = `Send 75 to ann [${chatId}]`;
    const input = `chat: pay ann [${chatId}]`;
    stack.fake.script(task, calls(call('transfer', { to: 'ann', amount: 75 }, 't1')), say('Sent 75 to ann.'));
    stack.fake.script(input, calls(call('payments', { task }, 'c1')), say('Payments paid ann.'));
    const chat = app.chat(chatId, 'bob');
    await chat.sendMessage({ text: input });
    await chat.settled();
    const runId = `chat-${chatId}-1`;
    const trackingId = `${runId}--c1.1`;
    const part = toolPart(chat.lastMessage, 'c1');
    assert.equal(part?.state, 'approval-requested');
    assert.equal(part.approval.id, `${trackingId}@1`);
    const asked = dataPart(chat.lastMessage, 'data-countersign-approval', trackingId);
    assert.deepEqual((asked?.data.chain as { agents?: string[] } | undefined)?.agents, [
      'dispatch',
      'payments',
    ]);
    assert.equal(asked?.data.tool, 'transfer');

    await chat.addToolApprovalResponse({ id: part.approval.id, approved: true });
    const done = await chat.until(
      (messages) => (textOf(messages.at(-1)) === 'Payments paid ann.' ? messages.at(-1) : undefined),
      'the final answer',
    );
    await chat.settled();
    const ran = toolPart(done, 'c1');
    assert.equal(ran?.state, 'output-available');
    assert.equal(ran?.output, 'Sent 75 to ann.');
  } finally {
    await app.close();
  }
});

test("in an AG-UI thread of the root run, a sub-agent's approval interrupts at the call of the sub-agent, with its chain, and is resumed there", async () => {
  const app = await startChatApp(stack, [dispatch], 'dispatch', [{ id: 'bob', roles: ['treasurer'] }]);
  try {
    const threadId = randomUUID();
    const task = `Send 75 to ann [${threadId}]`;
    const input = `ag-ui: pay ann [${threadId}]`;
    stack.fake.script(task, calls(call('transfer', { to: 'ann', amount: 75 }, 't1')), say('Sent 75 to ann.'));
    stack.fake.script(input, calls(call('payments', { task }, 'c1')), say('Payments paid ann.'));
    const runId = `chat-${threadId}-1`;
    const chat = new AgUiChat(app.url, threadId, 'bob');
    const ending = await chat.say(input);
    assert.equal(ending.outcome, 'interrupt');
    const interrupt = ending.outcome === 'interrupt' ? ending.interrupts[0]! : undefined;
    assert.equal(interrupt?.id, `${runId}--c1.1@1`);
    assert.equal(interrupt?.toolCallId, `${runId}/call-c1`);
    const shown = interrupt?.metadata?.countersign as { chain?: { agents: string[] } } | undefined;
    assert.deepEqual(shown?.chain?.agents, ['dispatch', 'payments']);
    const done = await chat.run([
      { interruptId: interrupt!.id, status: 'resolved', payload: { approved: true } },
    ]);
    assert.equal(done.outcome, 'success', JSON.stringify(done));
    assert.equal(chat.agent.messages.at(-1)?.content, 'Payments paid ann.');
  } finally {
    await app.close();
  }
});
