import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApprovalView } from '../../protocol/index.js';
import { call, calls, say } from './fake-model.js';
import { toolRuns, tokens } from './api-agents.js';
import type { Stack } from './stack.js';

/** The run's pending approval once it is an outcome approval. */
export async function pendingOutcome(stack: Stack, runId: string): Promise<ApprovalView> {
  for (;;) {
    const outcome = (await stack.waitForPending(runId)).find((a) => a.kind === 'outcome');
    if (outcome) return outcome;
    await sleep(50);
  }
}

/**
 * Bob asks the test `ops` agent to restart an `unsure-*` service (so he reads the run, and alice,
 * who is not its requester, may decide it); `approve` approves the call through some channel; the
 * call's one attempt ends unknown, and the run asks what happened. The model then says what the
 * tool said.
 */
export async function unknownRestart(
  stack: Stack,
  input: string,
  approve: (trackingId: string) => Promise<void>,
): Promise<{ runId: string; service: string; call: ApprovalView; outcome: ApprovalView }> {
  const service = `unsure-${input.replace(/\W+/g, '-')}`;
  const runId = await stack.startRun(
    'ops',
    input,
    tokens.bob,
    calls(call('restart_service', { service }, 'c1')),
    (request) => say(`tool said: ${request.messages.at(-1)?.content}`),
  );
  const [approval] = await stack.waitForPending(runId);
  assert.equal(approval!.kind, 'call');
  await approve(approval!.trackingId);
  return { runId, service, call: approval!, outcome: await pendingOutcome(stack, runId) };
}

/** Attempts of the run's tool calls, as the test agents record them. */
export const attemptsOf = (runId: string) => toolRuns.filter((r) => r.runId === runId).length;

/** The tool message the model read, once the run has completed. */
export async function toolMessage(stack: Stack, runId: string): Promise<string> {
  assert.equal((await stack.result(runId)).status, 'completed');
  const message = (await stack.state(runId)).transcript.find((m) => m.role === 'tool');
  assert.ok(message && message.role === 'tool');
  return message.content;
}
