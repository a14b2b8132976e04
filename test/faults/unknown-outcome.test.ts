import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { trackingIdFor, type ApprovalView, type RunEvent, type RunStatus } from '../../protocol/index.js';
import { waitFor } from '../support/wait-for.js';
import { restartUntilUp } from './support/chaos.js';
import { readExecutions } from './support/executions.js';
import { holdFile, ONCE_AGENT, ONCE_TOOL, sentFile } from './support/fault-agents.js';
import type { Rest } from './support/rest.js';
import { startScriptedStack } from './support/scripted-stack.js';

interface RunDetail {
  status: RunStatus;
  output?: string;
  pending: ApprovalView[];
  events: RunEvent[];
}

test('a tool that does not dedupe, its worker killed mid-call: one attempt, then a person decides what happened', async (t) => {
  const ref = `msg-${randomUUID().slice(0, 8)}`;
  const {
    stack,
    dataDir,
    as,
    detail: read,
  } = await startScriptedStack(t, {
    name: 'unknown-outcome',
    reviewers: 2,
    answer: (request) => {
      const tool = request.messages.find((m) => m.role === 'tool');
      if (tool) return { content: `done: ${tool.content}` };
      return { content: null, tool_calls: [{ id: 'c1', function: { name: ONCE_TOOL, arguments: { ref } } }] };
    },
  });
  const [requester, reviewer1, reviewer2] = as;
  const detail = (runId: string, accept: (d: RunDetail) => boolean) => read<RunDetail>(runId, accept);
  const outcomeAsked = async (runId: string, attempt: number) =>
    (
      await detail(runId, (d) =>
        d.pending.some((p) => p.kind === 'outcome' && p.attempt?.attempt === attempt),
      )
    ).pending.find((p) => p.kind === 'outcome')!;
  const sends = () => readExecutions(sentFile(dataDir));
  const waitForSends = (count: number) =>
    waitFor(async () => (sends().length >= count ? true : undefined), `${count} sends`);
  /** A decision on the revision its author was shown, as the inbox sends it. */
  const decide = async (rest: Rest, trackingId: string, body: Record<string, unknown>) => {
    const shown = await rest.send('GET', `/api/approvals/${trackingId}`);
    return rest.send('POST', `/api/approvals/${trackingId}/decision`, body, {
      'if-match': shown.headers.get('etag') ?? '',
    });
  };
  const killWorker = async () => {
    await stack.kill('worker');
    await restartUntilUp(stack, 'worker');
  };

  const connection = await Connection.connect({ address: stack.temporalAddress });
  t.after(() => connection.close());
  const temporal = new Client({ connection, namespace: 'default' });
  /** Until the step the tool reported has reached the server (heartbeats are throttled). */
  const serverHasStep = (runId: string, step: string) =>
    waitFor(async () => {
      const described = await temporal.workflow.getHandle(runId).describe();
      const details = (described.raw.pendingActivities ?? []).flatMap(
        (a) => a.heartbeatDetails?.payloads ?? [],
      );
      return details.some((p) =>
        Buffer.from(p.data ?? [])
          .toString()
          .includes(step),
      )
        ? true
        : undefined;
    }, `the step "${step}" to reach the server`);

  // Held after its effect: the first attempt sends, and its worker dies before it can say so.
  writeFileSync(holdFile(dataDir), '');
  const started = await requester!.send<{ runId: string }>('POST', '/api/runs', {
    agent: ONCE_AGENT,
    input: 'send it',
  });
  assert.equal(started.status, 201, JSON.stringify(started.body));
  const { runId } = started.body;
  await detail(runId, (d) => d.pending.length === 1);
  const approved = await decide(reviewer1!, trackingIdFor(runId, 1), {
    type: 'approve',
  });
  assert.ok([200, 202].includes(approved.status), JSON.stringify(approved.body));
  await waitForSends(1);
  const firstPid = sends()[0]!.pid;
  await serverHasStep(runId, `sent ${ref}`);
  await killWorker();

  const first = await outcomeAsked(runId, 1);
  assert.equal(sends().length, 1, 'the attempt was not repeated');
  assert.deepEqual(first.args, { ref });
  assert.equal(first.attempt?.progress?.step, `sent ${ref}`);
  assert.match(
    first.attempt?.worker ?? '',
    new RegExp(String.raw`\b${firstPid}\b`),
    'the worker that ran it',
  );
  assert.ok(first.attempt?.startedAt);
  assert.match(first.attempt!.reason, /stopped reporting/);
  // Each attempt is an activity of its own (one try each): count those of the tool.
  const toolAttempts = async () =>
    ((await temporal.workflow.getHandle(runId).fetchHistory()).events ?? []).filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool',
    ).length;
  assert.equal(await toolAttempts(), 1);
  // Listed for its approvers as any approval is (a list trails: wait for it).
  await reviewer1!.retry<{ approvals: { trackingId: string; kind: string }[] }>(
    'GET',
    '/api/approvals',
    undefined,
    (r) =>
      r.status === 200 &&
      r.body.approvals.some((a) => a.trackingId === first.trackingId && a.kind === 'outcome'),
  );

  // Only the call's approvers answer; the requester (no reviewer role) is refused.
  const wrongRole = await decide(requester!, first.trackingId, {
    type: 'approve',
  });
  assert.equal(wrongRole.status, 403, JSON.stringify(wrongRole.body));

  // "It did not happen: run it again": one more attempt under the same key, and it is cut off too.
  const again = await decide(reviewer1!, first.trackingId, {
    type: 'approve',
  });
  assert.ok([200, 202].includes(again.status), JSON.stringify(again.body));
  const twice = await decide(reviewer2!, first.trackingId, {
    type: 'reject',
  });
  assert.equal(twice.status, 409, 'decided already');
  await waitForSends(2);
  await serverHasStep(runId, `sent ${ref}`);
  await killWorker();
  const second = await outcomeAsked(runId, 2);
  assert.equal(sends().length, 2);
  assert.equal(new Set(sends().map((s) => s.key)).size, 1, 'the same idempotency key');
  assert.equal(await toolAttempts(), 2, 'one more attempt, only the one a person asked for');

  // "It happened", with the result the tool would have given: the model reads it.
  rmSync(holdFile(dataDir));
  const happened = await decide(reviewer2!, second.trackingId, {
    type: 'respond',
    result: { sent: ref },
    message: 'the recipient has it',
  });
  assert.ok([200, 202].includes(happened.status), JSON.stringify(happened.body));
  const done = await detail(runId, (d) => d.status === 'completed' || d.status === 'failed');
  assert.equal(done.status, 'completed');
  assert.equal(done.output, `done: ${JSON.stringify({ sent: ref })}`);
  assert.equal(sends().length, 2, 'nothing ran after the answer');
  assert.equal(await toolAttempts(), 2);
  assert.equal(done.events.filter((e) => e.type === 'tool.unknown').length, 2);
});
