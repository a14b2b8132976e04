import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import type { UIMessage } from 'ai';
import { call, calls, say } from '../support/fake-model.js';
import type { Scenario } from '../support/ai-sdk-7-chat.js';
import { dataPart, startChatApp, textOf, toolPart, type ChatApp } from '../support/ai-chat.js';
import { chatPeople, tellerBank, transfersMade } from '../support/chat-agents.js';
import { otherNodes } from '../support/node-versions.js';
import { startStack, type Stack } from '../support/stack.js';

/**
 * The same endpoint as chat-ai-sdk.test.ts, spoken to by AI SDK 7's own chat, transport and stream
 * reader (7.x needs Node 22: it runs on the newest Node that `npm ci` installs from PyPI). AI SDK 7
 * calls approvals `toolApproval` where 6 said `needsApproval`; the wire format is what is checked.
 */
const node = otherNodes().at(-1)!;
const client = fileURLToPath(new URL('../support/ai-sdk-7-chat.ts', import.meta.url));

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

/** Runs the AI SDK 7 chat in a process of its own on Node 22 or later, against this process's endpoint. */
async function chatOnAiSdk7(scenario: Omit<Scenario, 'url' | 'user'>) {
  const args = ['--import', 'tsx', client, JSON.stringify({ ...scenario, url: app.url, user: 'sam' })];
  const child = spawn(node.path, args, { cwd: fileURLToPath(new URL('../../', import.meta.url)) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0, `the AI SDK 7 chat failed:\n${stderr}`);
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { messages: UIMessage[]; requests: string[] };
}

test('AI SDK 7 is what the chat imports, on a Node it runs on', () => {
  const version = spawnSync(node.path, ['--version'], { encoding: 'utf8' }).stdout.trim();
  assert.ok(Number(/^v(\d+)\./.exec(version)?.[1]) >= 22, `${node.path} is ${version}`);
  const ai = JSON.parse(
    readFileSync(new URL('../../node_modules/ai-7/package.json', import.meta.url), 'utf8'),
  );
  assert.match(ai.version, /^7\./);
});

test("AI SDK 7's chat shows the approval request, sends the approval, and reads the output and the answer", async () => {
  const chatId = randomUUID();
  const runId = `chat-${chatId}-1`;
  stack.fake.script(
    'chat7: send 500',
    calls(call('transfer', { to: 'ann', amount: 500 }, 'c1')),
    say('Sent 500 to Ann.'),
  );
  const { messages, requests } = await chatOnAiSdk7({
    chatId,
    text: 'chat7: send 500',
    answer: { approved: true },
  });
  assert.deepEqual(requests, ['POST /chat', 'POST /chat']);
  assert.equal(messages.length, 2);
  const done = messages[1]!;
  assert.equal(done.id, runId);
  assert.equal(textOf(done), 'Sent 500 to Ann.');
  const ran = toolPart(done, 'c1');
  assert.equal(ran?.state, 'output-available');
  assert.deepEqual(ran?.input, { to: 'ann', amount: 500 });
  assert.deepEqual(ran?.output, { sent: 500, to: 'ann' });
  const decided = dataPart(done, 'data-countersign-approval', `${runId}.1`);
  assert.equal(decided?.data.status, 'approved');
  assert.deepEqual(decided?.data.by, ['sam']);
  assert.equal(dataPart(done, 'data-countersign-run', runId)?.data.status, 'completed');
  assert.deepEqual(
    transfersMade.filter((t) => t.runId === runId),
    [{ runId, to: 'ann', amount: 500 }],
  );
});

test("AI SDK 7's denial with a reason is a rejection the model reads", async () => {
  const chatId = randomUUID();
  const runId = `chat-${chatId}-1`;
  const conversation = stack.fake.script(
    'chat7: send 700',
    calls(call('transfer', { to: 'ann', amount: 700 }, 'c1')),
    (request) => say(`Not sent: ${String(request.messages.at(-1)?.content)}`),
  );
  const { messages } = await chatOnAiSdk7({
    chatId,
    text: 'chat7: send 700',
    answer: { approved: false, reason: 'Ann is not a payee yet' },
  });
  const done = messages.at(-1)!;
  assert.equal(toolPart(done, 'c1')?.state, 'output-denied');
  assert.equal(dataPart(done, 'data-countersign-approval', `${runId}.1`)?.data.status, 'rejected');
  assert.match(conversation.toolMessages().get('c1') ?? '', /Ann is not a payee yet/);
  assert.match(textOf(done), /Ann is not a payee yet/);
  assert.equal(transfersMade.filter((t) => t.runId === runId).length, 0);
});

test("AI SDK 7's approval with Countersign's edit extension runs the edited call", async () => {
  const chatId = randomUUID();
  const runId = `chat-${chatId}-1`;
  stack.fake.script(
    'chat7: send 900',
    calls(call('transfer', { to: 'ann', amount: 900 }, 'c1')),
    say('Sent.'),
  );
  const { messages } = await chatOnAiSdk7({
    chatId,
    text: 'chat7: send 900',
    answer: { approved: true, reason: 'Only 400 this month.', edit: { to: 'ann', amount: 400 } },
  });
  const done = messages.at(-1)!;
  assert.deepEqual(toolPart(done, 'c1')?.input, { to: 'ann', amount: 400 });
  const decided = dataPart(done, 'data-countersign-approval', `${runId}.1`);
  assert.equal(decided?.data.status, 'edited');
  assert.deepEqual(decided?.data.diff, [{ path: '/amount', before: 900, after: 400 }]);
  assert.deepEqual(
    transfersMade.filter((t) => t.runId === runId),
    [{ runId, to: 'ann', amount: 400 }],
  );
});
