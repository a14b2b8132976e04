import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ApprovalView } from '../../protocol/index.js';
import { tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';
import {
  attemptsOf,
  toolMessage as readToolMessage,
  unknownRestart as shared,
} from '../support/unknown-restart.js';

/**
 * An unknown outcome over REST: `restart_service` does not dedupe, and its first attempt on an
 * `unsure-*` service cannot tell whether the restart happened, so after the call is approved the
 * run asks an admin what happened (kind `outcome`) instead of running it again.
 */

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.close();
});

const decide = (trackingId: string, body: unknown, token = tokens.alice) =>
  stack.http('POST', `/api/approvals/${trackingId}/decision`, { token, body });

const unknownRestart = (input: string) =>
  shared(stack, input, async (trackingId) => {
    const approved = await decide(trackingId, { type: 'approve' });
    assert.equal(approved.status, 200, approved.text);
  });
const toolMessage = (runId: string) => readToolMessage(stack, runId);

test('the outcome approval is listed and shown with its attempt; only its roles may answer', async () => {
  const { runId, service, call: approval, outcome } = await unknownRestart('outcome: shown');
  assert.equal(attemptsOf(runId), 1, 'one attempt, not repeated');

  const listed = await stack.listUntil('/api/approvals', tokens.alice, (body) =>
    body.approvals.some((a: ApprovalView) => a.trackingId === outcome.trackingId),
  );
  const inList = listed.approvals.find((a: ApprovalView) => a.trackingId === outcome.trackingId);
  assert.equal(inList.kind, 'outcome');
  assert.equal(inList.attempt.progress.step, `restart of ${service} requested`);

  const shown = await stack.http('GET', `/api/approvals/${outcome.trackingId}`, { token: tokens.alice });
  assert.equal(shown.status, 200, shown.text);
  const view = shown.body;
  assert.equal(view.kind, 'outcome');
  assert.equal(view.tool, 'restart_service');
  assert.deepEqual(view.args, { service });
  assert.deepEqual(view.allowedDecisions, ['respond', 'approve', 'reject']);
  assert.deepEqual(view.approvers, approval.approvers);
  assert.equal(view.attempt.attempt, 1);
  assert.ok(view.attempt.startedAt && view.attempt.worker, JSON.stringify(view.attempt));
  assert.match(view.attempt.progress.at, /^\d{4}-\d\d-\d\dT/);
  assert.match(view.attempt.reason, new RegExp(`${service} did not confirm the restart`));
  // "It happened" is checked against the tool's result schema.
  assert.deepEqual(view.schema.required, ['restarted']);

  // Bob asked for the run, so he reads it, but restarts are answered by an admin.
  const wrongRole = await decide(outcome.trackingId, { type: 'approve' }, tokens.bob);
  assert.equal(wrongRole.status, 403);
  assert.equal(wrongRole.body.error.code, 'role_not_allowed');
  assert.match(wrongRole.body.error.message, /admin/);

  const badResult = await decide(outcome.trackingId, { type: 'respond', result: { restarted: 42 } });
  assert.equal(badResult.status, 400);
  assert.equal(badResult.body.error.code, 'invalid_arguments');
  assert.deepEqual(
    badResult.body.error.fields.map((f: { path: string }) => f.path),
    ['/result/restarted'],
  );

  const happened = await decide(outcome.trackingId, {
    type: 'respond',
    result: { restarted: service },
    message: 'the service log shows the restart',
  });
  assert.equal(happened.status, 200, happened.text);
  assert.equal(happened.body.outcome.status, 'responded');
  assert.equal(await toolMessage(runId), JSON.stringify({ restarted: service }));
  assert.equal(attemptsOf(runId), 1, 'nothing ran again');

  const twice = await decide(outcome.trackingId, { type: 'reject' });
  assert.equal(twice.status, 409);
  assert.equal(twice.body.error.code, 'already_settled');

  const events = (await stack.state(runId)).events;
  const unknown = events.find((e) => e.type === 'tool.unknown');
  assert.ok(unknown, 'the run logs tool.unknown');
  const ran = events.find((e) => e.type === 'tool.ran');
  assert.deepEqual((ran?.data as { reportedBy?: string[] }).reportedBy, ['alice']);
});

test('"it did not happen: run it again" makes a second attempt, and the run completes', async () => {
  const { runId, service, outcome } = await unknownRestart('outcome: again');
  const again = await decide(outcome.trackingId, { type: 'approve', message: 'nothing in the log' });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.body.outcome.status, 'approved');
  assert.equal(await toolMessage(runId), JSON.stringify({ restarted: service }));
  assert.equal(attemptsOf(runId), 2);
  assert.deepEqual(
    (await stack.state(runId)).approvals.map((a) => [a.kind, a.status]),
    [
      ['call', 'approved'],
      ['outcome', 'approved'],
    ],
  );
});

test('"it failed" with a message: the model is told the call failed, and nothing runs again', async () => {
  const { runId, outcome } = await unknownRestart('outcome: failed');
  const failed = await decide(outcome.trackingId, {
    type: 'reject',
    message: 'the service is down, restart never happened',
  });
  assert.equal(failed.status, 200, failed.text);
  assert.equal(failed.body.outcome.status, 'rejected');
  assert.match(
    await toolMessage(runId),
    /^The tool restart_service failed: its outcome was unknown and alice said it did not complete: the service is down, restart never happened$/,
  );
  assert.equal(attemptsOf(runId), 1);
});

test("the OpenAPI document lists the kind 'outcome' and the attempt", async () => {
  const doc = (await stack.http('GET', '/api/openapi.json')).body;
  const view = doc.components.schemas.ApprovalView;
  assert.ok(view.properties.kind.enum.includes('outcome'), JSON.stringify(view.properties.kind));
  const attempt = view.properties.attempt;
  assert.ok(attempt, 'ApprovalView has attempt');
  assert.deepEqual(attempt.required, ['attempt', 'reason']);
  assert.deepEqual(Object.keys(attempt.properties).sort(), [
    'attempt',
    'progress',
    'reason',
    'startedAt',
    'worker',
  ]);
  const events = doc.components.schemas.RunEvent;
  assert.match(JSON.stringify(events.properties.type), /"tool\.unknown"/);
});
