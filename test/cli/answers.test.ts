import assert from 'node:assert/strict';
import { runCli } from '../support/run-cli.js';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../define/index.js';
import type { ApprovalPolicyInput } from '../../protocol/index.js';
import { call, calls, say } from '../support/fake-model.js';
import { apiTestAgents, tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';

/**
 * `countersign respond --result <answer>` reads the answer by the schema it must meet: a string
 * answer is the text typed, unquoted; any other is JSON.
 */

const respondable: ApprovalPolicyInput = {
  decisions: ['approve', 'reject', 'respond'],
  approvers: ['admin'],
};

/** Answered in the tool's place with a string (the tool's result schema is a string). */
const findEmail = defineTool({
  name: 'find_email',
  description: 'Look up a customer email address.',
  parameters: z.object({ customer: z.string() }),
  result: z.string(),
  approval: respondable,
  execute: async () => 'lookup@example.com',
});

/** Answered in the tool's place with an object. */
const quote = defineTool({
  name: 'quote',
  description: 'Quote a price.',
  parameters: z.object({ item: z.string() }),
  result: z.object({ price: z.number() }),
  approval: respondable,
  execute: async () => ({ price: 1 }),
});

const desk = defineAgent({
  name: 'desk',
  description: 'Looks things up.',
  instructions: 'Look things up.',
  tools: [findEmail, quote],
});

let stack: Stack;
before(async () => {
  stack = await startStack({ agents: [...apiTestAgents, desk] });
});
after(async () => {
  await stack?.close();
});

function cli(args: string[]) {
  return runCli(args, { ...process.env, COUNTERSIGN_URL: stack.url, COUNTERSIGN_TOKEN: tokens.alice });
}

/**
 * Starts a run whose model makes one call, then says what the call returned. Victor asks, Alice
 * (admin) answers: nobody answers in the tool's place on their own run.
 */
async function pendingCall(agent: string, input: string, name: string, args: Record<string, unknown>) {
  const runId = await stack.startRun(agent, input, tokens.victor, calls(call(name, args, 'c1')), (request) =>
    say(`got ${request.messages.at(-1)?.content}`),
  );
  const [approval] = await stack.waitForPending(runId);
  return { runId, trackingId: approval!.trackingId };
}

/** What the tool call returned to the model, as the run's transcript shows it. */
async function toolResult(runId: string): Promise<string> {
  await stack.result(runId);
  const state = await stack.state(runId);
  const message = state.transcript.find((m) => m.role === 'tool');
  assert.ok(message && message.role === 'tool');
  return message.content;
}

test('a question with choices takes the choice as typed', async () => {
  const { runId, trackingId } = await pendingCall('helper', 'Which region, plainly?', 'ask_human', {
    question: 'Which region?',
    choices: ['eu', 'us'],
  });
  const answered = await cli(['respond', trackingId, '--result', 'eu']);
  assert.equal(answered.code, 0, answered.stderr);
  assert.equal(answered.stdout, `${trackingId}: responded on revision 1\n`);
  assert.equal(await toolResult(runId), 'eu');
});

test("a tool whose result is a string takes plain text, or JSON's quoted string", async () => {
  const plain = await pendingCall('desk', 'Email of Jane, plainly', 'find_email', { customer: 'Jane' });
  const answered = await cli(['respond', plain.trackingId, '--result', 'jane@example.com']);
  assert.equal(answered.code, 0, answered.stderr);
  assert.equal(answered.stdout, `${plain.trackingId}: responded on revision 1\n`);
  assert.equal(await toolResult(plain.runId), 'jane@example.com');

  const quoted = await pendingCall('desk', 'Email of Jane, quoted', 'find_email', { customer: 'Jane' });
  const again = await cli(['respond', quoted.trackingId, '--result', '"jane@example.com"']);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(await toolResult(quoted.runId), 'jane@example.com');
});

test('a tool whose result is an object takes JSON, and says so when given text', async () => {
  const { runId, trackingId } = await pendingCall('desk', 'Price of tea', 'quote', { item: 'tea' });
  const text = await cli(['respond', trackingId, '--result', 'cheap']);
  assert.equal(text.code, 1);
  assert.match(text.stderr, /^countersign: --result is not valid JSON: .* \(the answer must be object\)\n$/);
  const json = await cli(['respond', trackingId, '--result', '{"price": 5}']);
  assert.equal(json.code, 0, json.stderr);
  assert.equal(json.stdout, `${trackingId}: responded on revision 1\n`);
  assert.deepEqual(JSON.parse(await toolResult(runId)), { price: 5 });
});
