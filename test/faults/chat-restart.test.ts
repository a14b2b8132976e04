import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import type { UIMessage } from 'ai';
import { dataPart, NodeChat, textOf, type ToolPart } from '../support/ai-chat.js';
import { readExecutions } from './support/executions.js';
import { FAULT_TOOL } from './support/fault-agents.js';
import { FINISHED, inputFor } from './support/fault-model.js';
import { startFaultStack } from './support/fault-stack.js';

const waiting = (message: UIMessage | undefined, trackingId: string) => {
  const part = dataPart(message, 'data-countersign-approval', trackingId);
  return part?.data.state === 'waiting' ? part : undefined;
};

const callPart = (message: UIMessage | undefined) =>
  message?.parts.find((part): part is ToolPart => part.type === `tool-${FAULT_TOOL}`);

test('a chat waiting for a reviewer loses nothing when its API and worker are SIGKILLed: decided while the worker is down, the reloaded chat resumes', async (t) => {
  const fs = await startFaultStack();
  t.after(() => fs.close());
  const chatId = randomUUID();
  const runId = `chat-${chatId}-1`;
  const trackingId = `${runId}.1`;

  // The requester asks in the chat; the call waits for a reviewer, which the chat shows.
  const first = new NodeChat(fs.stack.apiUrl, chatId, fs.requester.token);
  void first.sendMessage({ text: inputFor('chat-1', 7) });
  await first.until(
    (messages) => waiting(messages.at(-1), trackingId),
    'the call shown waiting for a reviewer',
  );
  // The requester may not approve: the call is shown, with no approval request for them.
  assert.equal(callPart(first.lastMessage)?.state, 'input-available');

  // Both die mid-stream. The API comes back first; the reviewer decides while no worker runs,
  // naming the revision they read (there is no worker to ask for it).
  await fs.stack.kill('worker');
  await fs.stack.restart('api');
  const reviewer = fs.reviewers[0]!;
  const decided = await reviewer.retry(
    'POST',
    `/api/approvals/${encodeURIComponent(trackingId)}/decision`,
    { type: 'approve' },
    (reply) => reply.status === 200 || reply.status === 202,
    { headers: { 'if-match': '"1"' } },
  );
  assert.ok(decided.status === 200 || decided.status === 202, JSON.stringify(decided.body));
  await fs.stack.restart('worker');

  // The page is loaded afresh: it resumes, and the run goes on from the decision.
  const reloaded = new NodeChat(fs.stack.apiUrl, chatId, fs.requester.token);
  void reloaded.resumeStream();
  await reloaded.until((messages) => textOf(messages.at(-1)).startsWith(FINISHED) || undefined, 'the answer');
  await reloaded.settled();
  const done = reloaded.lastMessage;
  assert.equal(done?.id, runId);
  assert.equal(callPart(done)?.state, 'output-available');
  const approval = dataPart(done, 'data-countersign-approval', trackingId);
  assert.equal(approval?.data.status, 'approved');
  assert.deepEqual(approval?.data.by, ['reviewer-1']);
  assert.deepEqual(reloaded.requests, [`GET /chat/${chatId}/stream`]);
  // The change was applied once, with the reviewer's approval.
  const applied = readExecutions(fs.executionsFile).filter((e) => e.runId === runId && e.kind === 'applied');
  assert.deepEqual(
    applied.map((e) => ({ args: e.args, approvedBy: e.approvedBy })),
    [{ args: { ref: 'chat-1', amount: 7 }, approvedBy: ['reviewer-1'] }],
  );
});
