// Secret input (issue 32): a secret a person supplies reaches the tool that declares it and
// nothing else: not the history as the server stores it, the model, the logs, the run view, the
// events or the audit trail.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import proto from '@temporalio/proto';
import { getDecisionOutcome } from '../../client/index.js';
import { secretSealer } from '../../secrets/sealer.js';
import { decisionSignal } from '../../workflows/definitions.js';
import { call, calls, say, type Conversation } from '../support/fake-model.js';
import { secretsReceived, tokens } from '../support/api-agents.js';
import { pendingSecret as pendingSecretOn } from '../support/secret-runs.js';
import { startStack, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

const History = proto.temporal.api.history.v1.History;
const secretKeys = { keys: { s1: randomBytes(32) }, encryptWith: 's1' };

/** Everything this process writes to stdout and stderr: the API's and the worker's logs. */
const logs: string[] = [];
let stack: Stack;
before(async () => {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      logs.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      return write(chunk, ...rest);
    }) as typeof stream.write;
  }
  stack = await startStack({ secretKeys });
});
after(() => stack?.close());

const decide = (trackingId: string, body: unknown, token = tokens.alice) =>
  stack.http('POST', `/api/approvals/${trackingId}/decision`, { token, body });

/** Bob asks the dba agent; the model follows the script. */
async function startRun(input: string, ...steps: Parameters<Stack['fake']['script']>[1][]) {
  const conversation = stack.fake.script(input, ...steps);
  const started = await stack.http<{ runId: string }>('POST', '/api/runs', {
    token: tokens.bob,
    body: { agent: 'dba', input },
  });
  assert.equal(started.status, 201, started.text);
  return { runId: started.body.runId, conversation };
}

const pendingSecret = (runId: string, seen?: string[]) => pendingSecretOn(stack, runId, seen);

/** Where the secret's bytes must not be: the stored history, the model's requests, the API's answers, the logs. */
async function assertNowhere(secret: string, runId: string, conversation: Conversation): Promise<void> {
  const history = await stack.client.workflow.getHandle(runId).fetchHistory();
  const bytes = Buffer.from(History.encode(History.fromObject(history)).finish());
  assert.ok(bytes.length > 1000, 'the history was read');
  assert.equal(bytes.includes(Buffer.from(secret)), false, 'the stored history holds the secret');
  assert.ok(conversation.requests.length > 0);
  assert.equal(
    JSON.stringify(conversation.requests).includes(secret),
    false,
    'the model was sent the secret',
  );
  for (const route of [`/api/runs/${runId}`, `/api/runs/${runId}/events?follow=false`]) {
    const answer = await stack.http('GET', route, { token: tokens.alice });
    assert.equal(answer.status, 200, `${route}: ${answer.text}`);
    assert.equal(answer.text.includes(secret), false, `${route} shows the secret`);
  }
  const state = await stack.state(runId);
  for (const approval of state.approvals) {
    const detail = await stack.http('GET', `/api/approvals/${approval.trackingId}`, { token: tokens.alice });
    assert.equal(detail.status, 200, detail.text);
    assert.equal(detail.text.includes(secret), false, 'an approval shows the secret');
  }
  assert.equal(JSON.stringify(state).includes(secret), false, 'the run state holds the secret');
  assert.equal(logs.join('').includes(secret), false, 'a log line holds the secret');
}

test('a password supplied through REST reaches the tool, and its bytes appear nowhere else', async () => {
  const secret = `pw-${randomUUID()}`;
  const { runId, conversation } = await startRun(
    'Run the revenue report',
    calls(call('run_report', { report: 'revenue' }, 'c1')),
    (request) => say(`tool said: ${request.messages.at(-1)?.content}`),
  );

  const asked = await pendingSecret(runId);
  assert.equal(asked.tool, 'run_report');
  assert.deepEqual(asked.secret, { name: 'db_password', label: 'the reporting database password' });
  assert.deepEqual(asked.allowedDecisions, ['respond', 'reject']);
  assert.deepEqual(asked.approvers, ['admin']);
  // What the secret unlocks: the call's arguments (the secret itself is never among them).
  assert.deepEqual(asked.args, { report: 'revenue' });

  // Only those the policy names supply it; a secret never goes as a plain result.
  // Victor may not read the run: he learns nothing of it, not even that it waits.
  assert.equal((await decide(asked.trackingId, { type: 'respond', secret }, tokens.victor)).status, 404);
  assert.equal((await decide(asked.trackingId, { type: 'respond', secret }, tokens.bob)).status, 403);
  const plain = await decide(asked.trackingId, { type: 'respond', result: secret });
  assert.equal(plain.status, 400, plain.text);
  assert.equal(plain.body.error.fields[0].path, '/secret');
  const both = await decide(asked.trackingId, { type: 'respond', secret, result: 'x' });
  assert.equal(both.status, 400, both.text);

  const supplied = await decide(asked.trackingId, { type: 'respond', secret });
  assert.equal(supplied.status, 200, supplied.text);
  const again = await decide(asked.trackingId, { type: 'respond', secret: `${secret}-2` });
  assert.equal(again.status, 409, again.text);

  const result = await stack.result(runId);
  assert.equal(result.status, 'completed');
  const received = secretsReceived.filter((r) => r.runId === runId);
  assert.deepEqual(
    received.map((r) => r.secrets),
    [{ db_password: secret }],
    'the tool received the exact value, once',
  );
  // The tool echoed the password; the model reads it withheld.
  assert.match(result.output ?? '', /\[secret withheld\]/);

  const events = (await stack.state(runId)).events;
  const supply = events.find((e) => e.type === 'approval.decided' && e.trackingId === asked.trackingId);
  assert.equal(supply?.actor, 'alice', 'the audit trail says who supplied it');
  assert.equal(supply?.decision, 'respond');
  assert.ok(supply?.at);
  await assertNowhere(secret, runId, conversation);
});

test('used once by default: a second call asks again, and an error naming the secret is withheld', async () => {
  const first = `first-${randomUUID()}`;
  const second = `second-${randomUUID()}`;
  const { runId, conversation } = await startRun(
    'Two reports',
    calls(call('run_report', { report: 'revenue' }, 'c1')),
    calls(call('run_report', { report: 'broken' }, 'c2')),
    (request) => say(`tool said: ${request.messages.at(-1)?.content}`),
  );
  const one = await pendingSecret(runId);
  assert.equal((await decide(one.trackingId, { type: 'respond', secret: first })).status, 200);
  const two = await pendingSecret(runId, [one.trackingId]);
  assert.notEqual(two.trackingId, one.trackingId, 'the second call asked again');
  assert.equal((await decide(two.trackingId, { type: 'respond', secret: second })).status, 200);

  const result = await stack.result(runId);
  assert.equal(result.status, 'completed');
  assert.deepEqual(
    secretsReceived.filter((r) => r.runId === runId).map((r) => r.secrets.db_password),
    [first, second],
  );
  // The failing call's error names the password; the model reads it withheld.
  assert.match(result.output ?? '', /login refused for password \[secret withheld\]/);
  await assertNowhere(first, runId, conversation);
  await assertNowhere(second, runId, conversation);
});

test("a password the tool echoes base64-ed, in its output and in an error's cause, never reaches the model", async () => {
  const secret = `pw-${randomUUID()}!`;
  const { runId, conversation } = await startRun(
    'Encoded reports',
    calls(call('run_report', { report: 'encoded' }, 'c1')),
    calls(call('run_report', { report: 'encoded-broken' }, 'c2')),
    (request) => say(`tool said: ${request.messages.at(-1)?.content}`),
  );
  const one = await pendingSecret(runId);
  assert.equal((await decide(one.trackingId, { type: 'respond', secret })).status, 200);
  const two = await pendingSecret(runId, [one.trackingId]);
  assert.equal((await decide(two.trackingId, { type: 'respond', secret })).status, 200);
  assert.equal((await stack.result(runId)).status, 'completed');

  const base64 = (text: string) => Buffer.from(text).toString('base64');
  for (const echoed of [secret, base64(secret), base64(`reports:${secret}`)])
    await assertNowhere(echoed, runId, conversation);
  const told = conversation.requests.flatMap((r) => r.messages).map((m) => String(m.content));
  assert.ok(
    told.some((m) => m.includes('token=[secret withheld]; authorization: Basic ')),
    'the model read the output, withheld',
  );
  // The cause stays in the history and the worker's log, for whoever debugs it: withheld.
  const history = await stack.client.workflow.getHandle(runId).fetchHistory();
  const failure = history.events?.find((e) => e.activityTaskFailedEventAttributes)
    ?.activityTaskFailedEventAttributes?.failure;
  assert.equal(failure?.message, 'login refused');
  assert.equal(failure?.cause?.message, 'the server saw [secret withheld]');
  assert.ok(logs.join('').includes('the server saw [secret withheld]'), 'the worker logged the cause');
});

test('ask_human for a secret: the model learns who supplied it, and the tools keep it for the run', async () => {
  const code = `otp-${randomUUID()}`;
  const { runId, conversation } = await startRun(
    'Sign in twice',
    calls(call('ask_human', { question: 'What is the code on your authenticator?', secret: 'otp' }, 'q1')),
    (request) => {
      const told = String(request.messages.at(-1)?.content);
      assert.match(told, /alice supplied the secret "otp"\. You never see it/);
      return calls(call('sign_in', { account: 'ops' }, 'c1'));
    },
    calls(call('sign_in', { account: 'billing' }, 'c2')),
    say('signed in twice'),
  );
  const asked = await pendingSecret(runId);
  // Asked through ask_human, for the tool that will use it.
  assert.equal(asked.tool, 'sign_in');
  assert.equal(asked.toolCallId, 'q1');
  assert.equal(asked.question, 'What is the code on your authenticator?');
  assert.equal(asked.secret?.name, 'otp');
  // The requester may supply what the agent asks of a person, as with any question... if the
  // policy names their role: bob is a treasurer, the tool's approvers are admins.
  assert.equal((await decide(asked.trackingId, { type: 'respond', secret: code }, tokens.bob)).status, 403);
  assert.equal((await decide(asked.trackingId, { type: 'respond', secret: code })).status, 200);

  assert.equal((await stack.result(runId)).status, 'completed');
  assert.deepEqual(
    secretsReceived.filter((r) => r.runId === runId).map((r) => r.secrets.otp),
    [code, code],
    'both sign-ins received the code, asked once',
  );
  assert.equal((await stack.state(runId)).approvals.length, 1);
  await assertNowhere(code, runId, conversation);
});

test('an attempt whose outcome is unknown is run again with the same secret, asked once', async () => {
  const secret = `pw-${randomUUID()}`;
  const { runId, conversation } = await startRun(
    'An unsure report',
    calls(call('run_report', { report: 'unsure-revenue' }, 'c1')),
    (request) => say(`tool said: ${request.messages.at(-1)?.content}`),
  );
  const asked = await pendingSecret(runId);
  assert.equal((await decide(asked.trackingId, { type: 'respond', secret })).status, 200);
  const outcome = await waitFor(
    async () => (await stack.waitForPending(runId)).find((a) => a.kind === 'outcome'),
    'the question of what happened',
  );
  assert.equal((await decide(outcome.trackingId, { type: 'approve' })).status, 200, 'run it again');
  assert.equal((await stack.result(runId)).status, 'completed');
  assert.deepEqual(
    secretsReceived.filter((r) => r.runId === runId).map((r) => r.secrets.db_password),
    [secret, secret],
  );
  assert.equal((await stack.state(runId)).approvals.filter((a) => a.kind === 'secret').length, 1);
  await assertNowhere(secret, runId, conversation);
});

test('a secret goes only where one is asked for', async () => {
  const runId = await stack.startRun(
    'bank',
    'Move money',
    tokens.bob,
    calls(call('transfer', { from: 'a', to: 'b', amount: 5 }, 'c1')),
    say('done'),
  );
  const [approval] = await stack.waitForPending(runId);
  const answer = await decide(approval!.trackingId, { type: 'respond', secret: 'not-for-a-call' });
  assert.equal(answer.status, 400, answer.text);
  assert.equal(answer.body.error.fields[0].path, '/secret');
  assert.equal(answer.text.includes('not-for-a-call'), false);
});

test('the workflow takes no plain secret, and a seal made for another approval does not open', async () => {
  const secret = `stolen-${randomUUID()}`;
  const { runId } = await startRun(
    'Replay a seal',
    calls(call('run_report', { report: 'revenue' }, 'c1')),
    (request) => say(`tool said: ${request.messages.at(-1)?.content}`),
  );
  const asked = await pendingSecret(runId);
  const handle = stack.client.workflow.getHandle(runId);
  const signal = (decision: unknown, requestId: string, channel = 'api') =>
    handle.signal(decisionSignal, {
      trackingId: asked.trackingId,
      decision,
      approver: { id: 'alice', roles: ['admin'] },
      channel,
      requestId,
      revision: asked.revision,
    } as never);

  // Sent around the API: a plain answer is refused, and nothing is supplied.
  await signal({ type: 'respond', result: 'not-sealed' }, 'plain');
  const refused = await waitForOutcome(runId, 'plain');
  assert.equal(refused.accepted, false);
  assert.equal(refused.code, 'invalid_arguments');
  // Nor through an email link, even sealed right: a link never decides a secret.
  const viaLink = secretSealer(secretKeys).seal(secret, {
    trackingId: asked.trackingId,
    name: 'db_password',
  });
  await signal({ type: 'respond', sealed: viaLink }, 'link', 'email');
  assert.equal((await waitForOutcome(runId, 'link')).code, 'decision_not_allowed');

  // Sealed with the right key, for another approval: the workflow cannot tell, the activity can.
  const elsewhere = secretSealer(secretKeys).seal(secret, { trackingId: `${runId}.99`, name: 'db_password' });
  await signal({ type: 'respond', sealed: elsewhere }, 'replayed');
  assert.equal((await waitForOutcome(runId, 'replayed')).accepted, true);
  const result = await stack.result(runId);
  assert.match(result.output ?? '', /does not open: sealed for another approval or secret/);
  assert.equal(secretsReceived.filter((r) => r.runId === runId).length, 0, 'the tool never ran');
});

/** What the workflow did with a signal sent around the API, read by its request id. */
const waitForOutcome = (runId: string, requestId: string) =>
  waitFor(
    async () => (await getDecisionOutcome(stack.client, runId, requestId)) ?? undefined,
    `the outcome of ${requestId}`,
  );
