import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { startRun as startRunWithClient } from '../../client/index.js';
import { defineAgent, defineTool } from '../../define/index.js';
import type { ApproverConfig, RunEvent, RunState } from '../../protocol/index.js';
import { call, calls, say } from '../support/fake-model.js';
import { apiTestAgents, bank, testApprovers, tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';
import { openSse, type SseStream } from './sse-reader.js';

/**
 * Who may read and cancel a run (docs/security.md): admins, its requester, and the
 * approvers holding a role that may decide one of its calls. Everyone else is told the run does
 * not exist, on every route, list and stream.
 */

const wire = defineTool({
  name: 'wire',
  description: 'Wire money abroad.',
  parameters: z.object({ to: z.string(), amount: z.number().positive() }),
  approval: {
    // Small wires run at once; large ones go to the cfo; nobody deciding in time hands it to audit.
    when: {
      if: { arg: 'amount', op: 'gt', value: 10_000 },
      then: { approve: { name: 'large wire', approvers: ['cfo'] } },
      else: { if: { arg: 'amount', op: 'gt', value: 1_000 }, then: 'approve', else: 'auto' },
    },
    approvers: ['treasurer'],
    onTimeout: { action: 'escalate', approvers: ['auditor'], deadlineSeconds: 3600 },
  },
  execute: async (args) => ({ wired: args.amount }),
});
const wires = defineAgent({
  name: 'wires',
  description: 'Wires money.',
  instructions: 'You wire money.',
  tools: [wire],
});

const token = (name: string) => `${name}-token-0123456789abcdef`;
const more: ApproverConfig[] = [
  { id: 'carol', roles: ['cfo'], token: token('carol') },
  { id: 'erin', roles: ['auditor'], token: token('erin') },
  { id: 'otto', roles: ['operator'], token: token('otto') },
  { id: 'nina', roles: ['night-shift'], token: token('nina') },
];
const t = { ...tokens, carol: token('carol'), erin: token('erin'), otto: token('otto'), nina: token('nina') };

let stack: Stack;
before(async () => {
  stack = await startStack({ agents: [...apiTestAgents, wires], approvers: [...testApprovers, ...more] });
});
after(async () => {
  await stack?.close();
});

const listed = async (who: string, query = '') => {
  const answer = await stack.http('GET', `/api/runs${query}`, { token: who });
  assert.equal(answer.status, 200, answer.text);
  return (answer.body.runs as { runId: string }[]).map((r) => r.runId);
};

/** Lists as `who` until the list shows `runId` (the list shows a run a little after it changes). */
async function untilListed(who: string, runId: string, query = ''): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await listed(who, query)).includes(runId)) {
    assert.ok(Date.now() < deadline, `${runId} never showed in the list`);
    await sleep(50);
  }
}

/**
 * Reads the run as `who` would: its detail, its place in the list, and its event stream. Ask first
 * as someone who may read it: once they find it listed, someone who may not can be told apart.
 */
async function sees(who: string, runId: string, agent: string): Promise<boolean> {
  const detail = await stack.http('GET', `/api/runs/${runId}`, { token: who });
  const stream = await openSse(`${stack.url}/api/runs/${runId}/events`, who);
  stream.close();
  if (detail.status === 200) {
    await untilListed(who, runId, `?agent=${agent}`);
    assert.ok([200, 204].includes(stream.status), `${who} may follow ${runId}: ${stream.status}`);
    return true;
  }
  const inList = (await listed(who, `?agent=${agent}`)).includes(runId);
  assert.equal(detail.status, 404, detail.text);
  assert.equal(detail.body.error.code, 'not_found');
  assert.equal(detail.body.error.message, `no run ${runId}`, 'the same answer as for no run at all');
  assert.ok(!inList, `${who} may not read ${runId}, nor find it in the list`);
  assert.equal(stream.status, 404, `${who} may not follow ${runId}`);
  return false;
}

test('a requester reads their own run; an approver with no role on it sees no such run', async () => {
  // ops deploys need an admin: bob (treasurer) asks, nobody but an admin and bob may look.
  const runId = await stack.startRun(
    'ops',
    'access: bob deploys',
    t.bob,
    calls(call('deploy', { service: 'web', version: '9' })),
    say('Deployed.'),
  );
  await stack.waitForPending(runId);
  assert.equal(await sees(t.bob, runId, 'ops'), true);
  assert.equal(await sees(t.alice, runId, 'ops'), true);
  assert.equal(await sees(t.victor, runId, 'ops'), false);
  assert.equal(await sees(t.otto, runId, 'ops'), false);

  // Nor its approvals: not by tracking id, not in the pending list.
  const [pending] = await stack.waitForPending(runId);
  const approval = await stack.http('GET', `/api/approvals/${pending!.trackingId}`, { token: t.victor });
  assert.equal(approval.status, 404, approval.text);
  assert.equal(approval.body.error.code, 'unknown_approval');
  // A decision by one who may not read the run is a 404 too: not a 403 that names the role it needs.
  const decision = (who: string) =>
    stack.http('POST', `/api/approvals/${pending!.trackingId}/decision`, {
      token: who,
      body: { type: 'approve' },
      headers: { 'if-match': '"1"' },
    });
  const unreadable = await decision(t.victor);
  assert.equal(unreadable.status, 404, unreadable.text);
  assert.equal(unreadable.body.error.code, 'unknown_approval');
  assert.doesNotMatch(unreadable.text, /admin/);
  // The requester may read it, and is told which role deciding needs.
  const readable = await decision(t.bob);
  assert.equal(readable.status, 403, readable.text);
  assert.equal(readable.body.error.code, 'role_not_allowed');
  const inbox = async (who: string) =>
    (await stack.http('GET', '/api/approvals?agent=ops', { token: who })).body.approvals.map(
      (a: { trackingId: string }) => a.trackingId,
    );
  await stack.listUntil('/api/approvals?agent=ops', t.alice, (body) =>
    body.approvals.some((a: { trackingId: string }) => a.trackingId === pending!.trackingId),
  );
  assert.ok(
    !(await inbox(t.victor)).includes(pending!.trackingId),
    'not in the inbox of one who may not read it',
  );
  assert.ok(!(await inbox(t.otto)).includes(pending!.trackingId));

  const cancel = await stack.http('POST', `/api/runs/${runId}/cancel`, { token: t.victor });
  assert.equal(cancel.status, 404);
  assert.equal((await stack.state(runId)).status, 'waiting', 'nothing was cancelled');
  // The requester may cancel their own run.
  const own = await stack.http('POST', `/api/runs/${runId}/cancel`, { token: t.bob });
  assert.equal(own.status, 202, own.text);
  assert.equal((await stack.result(runId)).status, 'cancelled');
});

test("every role the agent's policy may ask, in a tier or an escalation, reads its runs", async () => {
  // A small wire runs at once: no approval was ever asked, but the agent's approvers oversee it.
  const runId = await stack.startRun(
    'wires',
    'access: small wire',
    t.bob,
    calls(call('wire', { to: 'CH', amount: 10 })),
    say('Wired.'),
  );
  assert.equal((await stack.result(runId)).status, 'completed');
  assert.equal(await sees(t.carol, runId, 'wires'), true, 'cfo: the large tier');
  assert.equal(await sees(t.erin, runId, 'wires'), true, 'auditor: the escalation');
  assert.equal(await sees(t.victor, runId, 'wires'), false);
  assert.equal(await sees(t.otto, runId, 'wires'), false);
  // Carol's list is every run of the agents she may decide for, and none other.
  const hers = await listed(t.carol);
  assert.ok(hers.includes(runId));
  for (const other of hers) {
    const detail = await stack.http('GET', `/api/runs/${other}`, { token: t.carol });
    assert.equal(detail.body.agent, 'wires', `${other} is one of hers`);
  }
});

test('an approval asking for a role the agent no longer names makes the run readable to that role', async () => {
  // A run started with a policy naming `night-shift`, which the API's agents do not name (the
  // policy changed since): the run asks nina's role, so nina may read it while it asks.
  const probe = await stack.startRun('bank', 'access: probe', t.alice, say('Hello.'));
  const { taskQueue } = await stack.client.workflow.getHandle(probe).describe();
  const { name, description, parameters, execute } = bank.tools[0]!;
  const oldTransfer = defineTool({
    name,
    description,
    parameters,
    execute,
    approval: { approvers: ['night-shift'], decisions: ['approve', 'reject'] },
  });
  const input = 'access: night transfer';
  stack.fake.script(input, calls(call('transfer', { from: 'a', to: 'b', amount: 5 })), say('Sent.'));
  const { runId } = await startRunWithClient(stack.client, {
    agent: defineAgent({ ...bank, tools: [oldTransfer] }),
    input,
    requester: 'victor',
    taskQueue,
    defaultModel: 'fake-model',
  });
  await stack.waitForPending(runId);
  await untilListed(t.nina, runId, '?agent=bank');
  assert.equal(await sees(t.nina, runId, 'bank'), true);
  assert.equal(await sees(t.otto, runId, 'bank'), false);
});

test('a cancel records who cancelled, when and through which channel, on the run and its approvals', async () => {
  const runId = await stack.startRun(
    'bank',
    'access: cancel me',
    t.victor,
    calls(call('transfer', { from: 'ops', to: 'acme', amount: 2000 })),
    say('never'),
  );
  const [pending] = await stack.waitForPending(runId);

  // otto holds no role on bank runs: no such run to him.
  const refused = await stack.http('POST', `/api/runs/${runId}/cancel`, { token: t.otto });
  assert.equal(refused.status, 404);
  assert.equal(refused.body.error.code, 'not_found');
  // Email links, Slack and chats decide through their own routes: REST cannot claim to be one.
  for (const channel of ['email', 'slack', 'chat']) {
    const badChannel = await stack.http('POST', `/api/runs/${runId}/cancel`, {
      token: t.bob,
      headers: { 'x-countersign-channel': channel },
    });
    assert.equal(badChannel.status, 400, `REST claimed to be ${channel}`);
  }
  assert.equal((await stack.state(runId)).status, 'waiting');

  // bob (treasurer) may decide the transfer, so he may cancel the run.
  const cancel = await stack.http('POST', `/api/runs/${runId}/cancel`, {
    token: t.bob,
    headers: { 'x-countersign-channel': 'cli' },
  });
  assert.equal(cancel.status, 202, cancel.text);
  const output = await stack.result(runId);
  assert.equal(output.status, 'cancelled');
  assert.equal(output.reason, 'the run was cancelled by bob (cli)');

  const run = await stack.http<RunState & { audit: RunEvent[] }>('GET', `/api/runs/${runId}`, {
    token: t.victor,
  });
  const approval = run.body.approvals.find((a) => a.trackingId === pending!.trackingId)!;
  assert.equal(approval.status, 'cancelled');
  assert.deepEqual(approval.outcome?.by, ['bob']);
  assert.equal(approval.outcome?.message, 'the run was cancelled by bob (cli)');
  const cancelled = run.body.audit.filter((e) => e.type === 'run.cancelled');
  assert.equal(cancelled.length, 1, 'the audit trail says who cancelled');
  assert.deepEqual([cancelled[0]!.actor, cancelled[0]!.channel], ['bob', 'cli']);
  assert.ok(!Number.isNaN(Date.parse(cancelled[0]!.at)), 'and when');
  const settled = run.body.audit.find((e) => e.type === 'approval.settled');
  assert.deepEqual(settled?.data, { by: ['bob'] });
  assert.ok(cancelled[0]!.id < settled!.id, 'who cancelled comes before what it settled');
});

async function untilRunFinished(stream: SseStream, runId: string) {
  return stream.until((m) => m.event === 'run.finished' && (m.data as RunEvent).runId === runId);
}

test('the inbox stream carries the events of the runs the caller may read, and no others', async () => {
  const victor = await openSse(`${stack.url}/api/events`, t.victor);
  const alice = await openSse(`${stack.url}/api/events`, t.alice);
  try {
    assert.equal(victor.status, 200);
    const hidden = await stack.startRun('ops', 'access: hidden from victor', t.bob, say('Nothing to do.'));
    await untilRunFinished(alice, hidden);
    // Started after the feed told every event of the hidden run: victor's stream carries this
    // run's end after whatever it would have carried of the hidden one.
    const own = await stack.startRun('bank', 'access: victor marker', t.victor, say('Nothing to do.'));
    const seen = await untilRunFinished(victor, own);
    const runs = new Set(seen.map((m) => (m.data as RunEvent).runId));
    assert.ok(runs.has(own));
    assert.ok(!runs.has(hidden), 'no event of a run victor may not read');
  } finally {
    victor.close();
    alice.close();
  }
});

test('pause and resume follow the cancel rule; a paused run says so, runs no decided call, and each answers 409 out of turn', async () => {
  const runId = await stack.startRun(
    'bank',
    'access: pause me',
    t.victor,
    calls(call('transfer', { from: 'ops', to: 'acme', amount: 2000 })),
    say('Sent.'),
  );
  const [pending] = await stack.waitForPending(runId);
  const control = (who: string, action: 'pause' | 'resume', body?: unknown, channel = 'inbox') =>
    stack.http('POST', `/api/runs/${runId}/${action}`, {
      token: who,
      body,
      headers: { 'x-countersign-channel': channel },
    });

  // otto holds no role on bank runs: no such run to him, and nothing changes.
  assert.equal((await control(t.otto, 'pause')).status, 404);
  assert.equal((await control(t.bob, 'resume')).status, 409, 'a running run is not paused');
  const paused = await control(t.bob, 'pause', { message: 'wrong payee?' });
  assert.equal(paused.status, 202, paused.text);
  assert.deepEqual(paused.body, { runId, status: 'pausing' });
  const state = await waitForState(runId, (s) => s.status === 'paused');
  // Its approval stays decidable while paused.
  assert.equal(state.pending[0]!.trackingId, pending!.trackingId);
  assert.equal((await control(t.bob, 'pause')).status, 409, 'already paused');
  await stack.listUntil('/api/runs?status=paused', t.alice, (body) =>
    body.runs.some((r: { runId: string; status: string }) => r.runId === runId && r.status === 'paused'),
  );

  // Decided while paused, the call waits for the resume.
  const approved = await stack.http('POST', `/api/approvals/${pending!.trackingId}/decision`, {
    token: t.bob,
    body: { type: 'approve' },
  });
  assert.equal(approved.status, 200, approved.text);
  const decided = await waitForState(runId, (s) => s.pending.length === 0);
  assert.equal(decided.status, 'paused');
  assert.equal(decided.events.filter((e) => e.type === 'tool.ran').length, 0, 'no tool runs while paused');

  const resumed = await control(t.victor, 'resume', { message: 'Payee checked.' }, 'cli');
  assert.equal(resumed.status, 202, resumed.text);
  assert.equal((await stack.result(runId)).status, 'completed');
  assert.equal((await stack.state(runId)).events.filter((e) => e.type === 'tool.ran').length, 1);
  const detail = await stack.http<RunState & { audit: RunEvent[] }>('GET', `/api/runs/${runId}`, {
    token: t.victor,
  });
  const controls = await waitForState(runId, (s) => s.events.some((e) => e.type === 'run.resumed'));
  assert.deepEqual(
    controls.events
      .filter((e) => e.type === 'run.paused' || e.type === 'run.resumed')
      .map((e) => [e.type, e.actor, e.channel, e.message]),
    [
      ['run.paused', 'bob', 'inbox', 'wrong payee?'],
      ['run.resumed', 'victor', 'cli', 'Payee checked.'],
    ],
  );
  assert.equal(detail.status, 200);
});

/** The run's state once `ready` holds (the run takes a signal at its next workflow task). */
async function waitForState(runId: string, ready: (state: RunState) => boolean): Promise<RunState> {
  for (let tries = 0; tries < 600; tries++) {
    const state = await stack.state(runId);
    if (ready(state)) return state;
    await sleep(50);
  }
  throw new Error(`run ${runId} never reached the state`);
}
