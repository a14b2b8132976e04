import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { tokens } from '../support/api-agents.js';
import { pausedTransfers } from '../support/paused-transfers.js';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.close();
});

interface Approvals {
  approvals: { runId: string; trackingId: string; status: string }[];
  nextPageToken?: string;
}

const list = async (route: string) => {
  const answer = await stack.http<Approvals>('GET', route, { token: tokens.alice });
  assert.equal(answer.status, 200, answer.text);
  return answer.body;
};
const runsOf = (page: Approvals) => new Set(page.approvals.map((a) => a.runId));

test('pending approvals come 50 runs a page by default, up to 1,000 when asked', async () => {
  const runIds = await pausedTransfers(stack, 'approval pages', 55);

  // A reviewer's first screen: 50 runs, and a token for the rest.
  const first = await list('/api/approvals?status=pending');
  assert.equal(runsOf(first).size, 50);
  assert.equal(first.approvals.length, 50);
  assert.ok(first.nextPageToken, 'a next page');
  const second = await list(`/api/approvals?status=pending&pageToken=${first.nextPageToken}`);
  assert.equal(second.approvals.length, 5);
  assert.equal(second.nextPageToken, undefined);
  assert.deepEqual(new Set([...runsOf(first), ...runsOf(second)]), new Set(runIds));

  // A client reading every page asks for 1,000 runs a page.
  const whole = await list('/api/approvals?status=pending&limit=1000');
  assert.deepEqual(runsOf(whole), new Set(runIds));
  assert.equal(whole.approvals.length, 55);
  assert.equal(whole.nextPageToken, undefined);
  assert.ok(whole.approvals.every((a) => a.status === 'pending'));
});
