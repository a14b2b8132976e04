import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { apiTestAgents, tokens } from '../support/api-agents.js';
import { call, calls, say } from '../support/fake-model.js';
import { pendingCall, pettyCash, startRefills } from '../support/petty-cash.js';
import { runCli } from '../support/run-cli.js';
import { startStack, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Standing approvals from the terminal: bob (a treasurer) approves a refill with `--standing`, the
 * next refill runs under it, a note asks as usual, and `runs revoke-standing` ends it, so the third
 * refill asks again. A tool whose policy offers none refuses `--standing`.
 */

let stack: Stack;
before(async () => {
  stack = await startStack({ agents: [...apiTestAgents, pettyCash] });
});
after(async () => {
  await stack?.close();
});

const cli = (args: string[], token = tokens.bob) =>
  runCli(args, { ...process.env, COUNTERSIGN_URL: stack.url, COUNTERSIGN_TOKEN: token });

async function ok(args: string[]): Promise<string> {
  const result = await cli(args);
  assert.equal(result.code, 0, `countersign ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

test('approve --standing covers the next call like it; runs revoke-standing ends it', async () => {
  const runId = await startRefills(stack, 'cli: standing');
  const first = await pendingCall(stack, runId, 'r1');
  await ok(['approve', first.trackingId, '--standing']);
  const noted = await pendingCall(stack, runId, 'n1');
  const [standing] = (await stack.state(runId)).standing ?? [];
  assert.deepEqual([standing?.status, standing?.covered], ['active', ['r2']]);

  const refused = await cli(['runs', 'revoke-standing', runId, first.trackingId], tokens.victor);
  assert.notEqual(refused.code, 0, 'victor holds no role the refill asked for');
  assert.match(refused.stderr, /role/);
  assert.match(await ok(['runs', 'revoke-standing', runId, first.trackingId]), /revoking/);
  const revoked = await waitFor(async () => {
    const state = await stack.state(runId);
    return state.standing?.[0]?.status === 'revoked' ? state : undefined;
  }, 'the standing approval revoked');
  const entry = revoked.events.find((e) => e.type === 'standing.revoked');
  assert.deepEqual([entry?.actor, entry?.channel], ['bob', 'cli']);

  await ok(['approve', noted.trackingId]);
  const third = await pendingCall(stack, runId, 'r3');
  await ok(['reject', third.trackingId, '--message', 'enough']);
  assert.equal((await stack.result(runId)).status, 'completed');
});

test('approve --standing is refused where the policy offers none, and decides nothing', async () => {
  const runId = await stack.startRun(
    'petty-cash',
    'cli: no standing',
    tokens.victor,
    calls(call('note', { text: 'hello' }, 'n1')),
    say('Noted.'),
  );
  const note = await pendingCall(stack, runId, 'n1');
  const refused = await cli(['approve', note.trackingId, '--standing']);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /policy allows no standing approval/);
  assert.equal((await stack.state(runId)).pending.length, 1, 'still waiting');
  await ok(['approve', note.trackingId]);
  assert.equal((await stack.result(runId)).status, 'completed');
});
