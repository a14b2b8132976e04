import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import type { ChatCompletionRequest } from '../../model-server/chat-completions-server.js';
import { trackingIdFor, type RunEvent, type RunStatus } from '../../protocol/index.js';
import { pauseSignal } from '../../workflows/definitions.js';
import { restartUntilUp } from './support/chaos.js';
import { readExecutions } from './support/executions.js';
import { appliedText, executionsFile, FAULT_AGENT, FAULT_TOOL } from './support/fault-agents.js';
import { linkTokens, waitForEmail } from './support/outbox.js';
import type { Rest } from './support/rest.js';
import { startScriptedStack } from './support/scripted-stack.js';

interface RunDetail {
  status: RunStatus;
  output?: string;
  events: RunEvent[];
  transcript: { role: string; content: string | null }[];
}

test('a run paused with approvals pending continues as new, survives a restart, and is decided by the link and the REST call issued before', async (t) => {
  // Two changes in one turn, each gated; once both are answered, the model finishes.
  const refs = [`a-${randomUUID().slice(0, 8)}`, `b-${randomUUID().slice(0, 8)}`] as const;
  const requests: ChatCompletionRequest[] = [];
  const {
    stack,
    dataDir,
    approvers,
    as,
    detail: read,
  } = await startScriptedStack(t, {
    name: 'continue-pending',
    reviewers: 1,
    notify: true,
    answer: (request) => {
      requests.push(request);
      const answered = request.messages.filter((m) => m.role === 'tool').map((m) => m.content);
      if (answered.length > 0) return { content: `done: ${answered.join(' | ')}` };
      return {
        content: null,
        tool_calls: refs.map((ref, i) => ({
          id: `c${i + 1}`,
          function: { name: FAULT_TOOL, arguments: { ref, amount: 7 + i } },
        })),
      };
    },
  });
  const [requester, reviewer] = as as [Rest, Rest];
  const detail = (runId: string, accept: (d: RunDetail) => boolean) => read<RunDetail>(runId, accept);
  const restart = async () => {
    await stack.kill('worker');
    await stack.kill('temporal');
    await restartUntilUp(stack, 'temporal');
    await restartUntilUp(stack, 'worker');
  };
  const emailsAbout = (trackingId: string) =>
    readdirSync(path.join(dataDir, 'outbox')).filter((n) => n.endsWith('.eml') && n.includes(trackingId));

  // The run waits on both approvals, each mailed to the reviewer, and is paused.
  const started = await requester.send<{ runId: string }>('POST', '/api/runs', {
    agent: FAULT_AGENT,
    input: 'apply both changes',
  });
  assert.equal(started.status, 201, JSON.stringify(started.body));
  const { runId } = started.body;
  const [byLink, byRest] = [trackingIdFor(runId, 1), trackingIdFor(runId, 2)];
  const mail = await waitForEmail(dataDir, approvers[1]!.email!, byLink);
  await waitForEmail(dataDir, approvers[1]!.email!, byRest);
  const { approve: approveLink } = linkTokens(mail);
  assert.ok(approveLink, 'the email carries an approve link');
  const shown = await reviewer.send('GET', `/api/approvals/${byRest}`);
  assert.equal(shown.status, 200);
  const etag = shown.headers.get('etag') ?? '';
  const pause = await requester.send('POST', `/api/runs/${runId}/pause`, { message: 'hold for the audit' });
  assert.equal(pause.status, 202, JSON.stringify(pause.body));
  await detail(runId, (d) => d.status === 'paused');

  // The cluster's operator lowers the point where the server suggests continuing as new, below
  // this run's history; the next workflow task (any signal) sees the suggestion.
  const connection = await Connection.connect({ address: stack.temporalAddress });
  t.after(() => connection.close());
  const temporal = new Client({ connection, namespace: 'default' });
  const firstExecution = (await temporal.workflow.getHandle(runId).describe()).runId;
  stack.setTemporalConfig({ 'limit.historyCount.suggestContinueAsNew': 10 });
  await restart();
  // A second pause is taken by a paused run as nothing; its workflow task is what this needs.
  await temporal.workflow
    .getHandle(runId)
    .signal(pauseSignal, { actor: 'requester', channel: 'api', message: 'still holding' });
  const continued = await detail(runId, (d) => d.events.some((e) => e.type === 'run.continued'));
  assert.equal(continued.status, 'paused', 'still paused in the next execution');
  const handed = continued.events.find((e) => e.type === 'run.continued')!;
  assert.equal((handed.data as { pendingApprovals?: number }).pendingApprovals, 2);
  assert.equal(
    (await temporal.workflow.getHandle(runId, firstExecution).describe()).status.name,
    'CONTINUED_AS_NEW',
  );

  // Back to the cluster's defaults, and both die again after the continuation.
  stack.setTemporalConfig({});
  await restart();

  // The link mailed before the continuation approves; so does the REST call on the revision shown then.
  const linked = await fetch(`${stack.apiUrl}/links/${approveLink}`, { method: 'POST' });
  assert.equal(linked.status, 200, await linked.text());
  const decided = await reviewer.send(
    'POST',
    `/api/approvals/${byRest}/decision`,
    { type: 'approve' },
    { 'if-match': etag },
  );
  assert.ok([200, 202].includes(decided.status), JSON.stringify(decided.body));
  const both = await detail(
    runId,
    (d) => d.events.filter((e) => e.type === 'approval.settled' && e.status === 'approved').length === 2,
  );
  assert.equal(both.status, 'paused');
  assert.deepEqual(readExecutions(executionsFile(dataDir)), [], 'nothing runs while paused');
  assert.deepEqual(
    [emailsAbout(byLink).length, emailsAbout(byRest).length],
    [1, 1],
    'nobody was asked twice: the next execution waits on the same approvals',
  );

  const resume = await requester.send('POST', `/api/runs/${runId}/resume`, {});
  assert.equal(resume.status, 202, JSON.stringify(resume.body));
  const done = await detail(runId, (d) => d.status === 'completed' || d.status === 'failed');
  assert.equal(done.status, 'completed', JSON.stringify(done.events.at(-1)));

  // Each change ran once; the model was asked twice in all, the second time with both answers.
  assert.deepEqual(
    readExecutions(executionsFile(dataDir))
      .map((e) => [e.kind, e.runId, e.args])
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    [
      ['applied', runId, { ref: refs[0], amount: 7 }],
      ['applied', runId, { ref: refs[1], amount: 8 }],
    ],
  );
  assert.equal(requests.length, 2);
  assert.equal(done.output, `done: ${appliedText(refs[0], 7)} | ${appliedText(refs[1], 8)}`);
  // One audit trail across both executions: ids in order, the decisions with their channels.
  assert.deepEqual(
    done.events.map((e) => e.id),
    done.events.map((_, i) => i + 1),
  );
  assert.deepEqual(
    done.events.filter((e) => e.type === 'approval.decided').map((e) => [e.trackingId, e.actor, e.channel]),
    [
      [byLink, 'reviewer-1', 'email'],
      [byRest, 'reviewer-1', 'api'],
    ],
  );
});
