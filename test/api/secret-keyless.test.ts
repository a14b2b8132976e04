import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { secretsReceived, tokens } from '../support/api-agents.js';
import { reportRun } from '../support/secret-runs.js';
import { startStack, type Stack } from '../support/stack.js';

// An API and a worker given no secret keys: a secret is refused, never taken unsealed.
let stack: Stack;
before(async () => {
  stack = await startStack({ secretKeys: null });
});
after(() => stack?.close());

test('an API without secret keys answers 501 and sends nothing to the run', async () => {
  const secret = `pw-${randomUUID()}`;
  const { runId, approval } = await reportRun(stack, 'Revenue without keys');
  const answer = await stack.http('POST', `/api/approvals/${approval.trackingId}/decision`, {
    token: tokens.alice,
    body: { type: 'respond', secret },
  });
  assert.equal(answer.status, 501, answer.text);
  assert.equal(answer.body.error.code, 'secret_input_unavailable');
  assert.equal(answer.text.includes(secret), false);
  const state = await stack.state(runId);
  assert.equal(state.approvals[0]?.status, 'pending', 'the approval still waits');
  assert.equal(state.events.filter((e) => e.type === 'approval.decided').length, 0);
  assert.equal(secretsReceived.filter((r) => r.runId === runId).length, 0);
});
