import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { ApprovalView } from '../../protocol/index.js';
import { call, calls, say } from '../support/fake-model.js';
import { secretsReceived, tokens } from '../support/api-agents.js';
import { runCli } from '../support/run-cli.js';
import { reportRun as reportRunOn, pendingSecret } from '../support/secret-runs.js';
import { startStack, type Stack } from '../support/stack.js';
import { literal, Terminal } from '../support/terminal.js';

/**
 * Secret input from the terminal: `countersign respond <id>` asks for a secret (kind `secret`)
 * with echo off at a terminal, or reads the first line of stdin from a pipe; never takes it as an
 * argument; and prints it nowhere. `watch` asks for it the same way. The terminal tests run the
 * CLI on a real pseudo-terminal, which would echo every key typed unless the CLI turned echo off.
 */

const LABEL = 'the reporting database password';

let stack: Stack;
const terminals: Terminal[] = [];
before(async () => {
  stack = await startStack();
});
after(async () => {
  terminals.forEach((t) => t.kill());
  await stack?.close();
});

const env = (): NodeJS.ProcessEnv => ({
  ...process.env,
  COUNTERSIGN_URL: stack.url,
  COUNTERSIGN_TOKEN: tokens.alice,
});
const cli = (args: string[], input?: string) => runCli(args, env(), input === undefined ? {} : { input });
function terminal(args: string[], pty = true): Terminal {
  const t = new Terminal(args, env(), { pty });
  terminals.push(t);
  return t;
}

const reportRun = (input: string) => reportRunOn(stack, input);

/** The passwords `run_report` received in this run, in order. */
const received = (runId: string) =>
  secretsReceived.filter((r) => r.runId === runId).map((r) => r.secrets.db_password);

const approvalOf = async (trackingId: string) =>
  (await stack.http<ApprovalView>('GET', `/api/approvals/${trackingId}`, { token: tokens.alice })).body;

/** What the CLI says once the secret is taken. */
const supplied = (trackingId: string) =>
  `${trackingId}: responded on revision 1 (the secret went to the tool; it is never shown again)`;

test('typed at a terminal: nothing echoes, Backspace takes back, and the tool gets what was meant', async () => {
  const secret = `pw-${randomUUID()}`;
  const { runId, approval } = await reportRun('Revenue, typed at a terminal');
  const t = terminal(['respond', approval.trackingId]);
  await t.until(/What you type is not shown\. Enter sends it; Ctrl-C cancels\.\r?\n/);
  await t.until(new RegExp(`${literal(LABEL)}: `));
  // Typed in pieces, with a slip corrected: two wrong keys, two Backspaces; then Enter.
  t.press(secret.slice(0, 10));
  t.press('XY');
  t.press('\u007f\u007f');
  t.press(secret.slice(10));
  t.press('\r');
  await t.until(new RegExp(literal(supplied(approval.trackingId))));
  assert.equal(await t.exited, 0, t.screen);

  // The prompt's line stays empty: not a key echoed, not even a mask.
  assert.match(t.screen, new RegExp(`${literal(LABEL)}: \\r?\\n${literal(approval.trackingId)}: responded`));
  for (const piece of [secret, secret.slice(0, 10), secret.slice(10), 'XY'])
    assert.equal(t.screen.includes(piece), false, `the terminal showed ${piece}:\n${t.screen}`);

  const result = await stack.result(runId);
  assert.equal(result.status, 'completed');
  assert.deepEqual(received(runId), [secret], 'the tool received the exact value, once');
  assert.match(result.output ?? '', /\[secret withheld\]/);
});

test('Ctrl-C at the prompt sends nothing, and the secret is still asked for', async () => {
  const { runId, approval } = await reportRun('Revenue, cancelled at the terminal');
  const t = terminal(['respond', approval.trackingId]);
  await t.until(new RegExp(`${literal(LABEL)}: `));
  t.press('half-typed');
  t.press('\u0003');
  await t.until(/countersign: cancelled; nothing was sent/);
  assert.equal(await t.exited, 1);
  assert.equal(t.screen.includes('half-typed'), false, t.screen);

  const still = await approvalOf(approval.trackingId);
  assert.equal(still.status, 'pending');
  assert.equal(still.revision, 1);
  assert.deepEqual(received(runId), []);
  // Supplied after all, from a script: the first line of stdin, without its line ending.
  const secret = `piped-${randomUUID()}`;
  const piped = await cli(['respond', approval.trackingId], `${secret}\r\nthe next line is not read\n`);
  assert.equal(piped.code, 0, piped.stderr);
  assert.equal(piped.stdout, `${supplied(approval.trackingId)}\n`);
  assert.equal(piped.stderr, '', 'no prompt when stdin is not a terminal');
  assert.equal((await stack.result(runId)).status, 'completed');
  assert.deepEqual(received(runId), [secret]);
});

test('piped in as printf %s "$PW" does (no line break): the tool gets it exactly', async () => {
  const secret = `printf pw with spaces ${randomUUID()} and ünïcode`;
  const { runId, approval } = await reportRun('Revenue, piped');
  const answered = await cli(['respond', approval.trackingId], secret);
  assert.equal(answered.code, 0, answered.stderr);
  assert.equal(answered.stdout, `${supplied(approval.trackingId)}\n`);
  assert.equal(`${answered.stdout}${answered.stderr}`.includes(secret), false);
  assert.equal((await stack.result(runId)).status, 'completed');
  assert.deepEqual(received(runId), [secret]);
});

test('a secret is never taken from the command line, nor from an empty stdin', async () => {
  const secret = `argv-${randomUUID()}`;
  const { runId, approval } = await reportRun('Revenue, with --result');
  const id = approval.trackingId;

  const refused = await cli(['respond', id, '--result', secret]);
  assert.equal(refused.code, 1);
  assert.equal(refused.stdout, '');
  assert.match(refused.stderr, /a secret is never taken from the command line/);
  assert.match(refused.stderr, new RegExp(`Run \`countersign respond ${literal(id)}\` without --result`));
  assert.match(refused.stderr, new RegExp(`printf %s "\\$VALUE" \\| countersign respond ${literal(id)}`));
  assert.match(refused.stderr, /nothing was sent/);
  assert.equal(refused.stderr.includes(secret), false, 'the error quotes the secret');
  // Even with a pipe ready to give it: --result is refused first.
  const both = await cli(['respond', id, '--result', secret], `${secret}\n`);
  assert.equal(both.code, 1);
  assert.equal(`${both.stdout}${both.stderr}`.includes(secret), false);

  const empty = await cli(['respond', id]);
  assert.equal(empty.code, 1);
  assert.match(empty.stderr, /no secret given: stdin is not a terminal and was empty/);
  const blank = await cli(['respond', id], '\n');
  assert.equal(blank.code, 1);
  assert.match(blank.stderr, /the secret is empty; nothing was sent/);

  const still = await approvalOf(id);
  assert.equal(still.status, 'pending');
  assert.equal(still.revision, 1);
  assert.deepEqual(still.approvals, []);
  assert.deepEqual(received(runId), []);

  // Refused instead: nobody supplies it, and the call goes without.
  const rejected = await cli(['reject', id, '--message', 'not from this machine']);
  assert.equal(rejected.code, 0, rejected.stderr);
  assert.equal(
    rejected.stdout,
    `${id}: rejected on revision 1 (nobody supplies it: the call goes without)\n`,
  );
  const result = await stack.result(runId);
  assert.equal(result.status, 'completed');
  assert.deepEqual(received(runId), []);
  const state = await stack.state(runId);
  assert.ok(
    state.transcript.some(
      (m) => m.role === 'tool' && /declined to supply .*not from this machine/.test(m.content),
    ),
  );
  // A settled secret asks for nothing more.
  const late = await cli(['respond', id], 'too late\n');
  assert.equal(late.code, 1);
  assert.match(late.stderr, /is rejected: there is no secret to supply any more/);
});

test('approvals show says what a secret unlocks: the arguments of the call it is for', async () => {
  const { runId, approval } = await reportRun('Revenue, shown with its call');
  const shown = await cli(['approvals', 'show', approval.trackingId]);
  // Declined before anything is asserted: a failure here leaves nothing pending for the next tests.
  const declined = await cli(['reject', approval.trackingId]);
  assert.equal(declined.code, 0, declined.stderr);
  assert.equal((await stack.result(runId)).status, 'completed');
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(
    shown.stdout,
    /\n {2}secret: the reporting database password \(db_password\), for run_report\n/,
  );
  assert.match(shown.stdout, /\n {2}run_report arguments:\n {4}\{\n {6}"report": "revenue"\n {4}\}\n/);
});

test('approvals list and show say what is needed and how; watch asks for it without echo', async () => {
  const code = `otp-${randomUUID()}`;
  const runId = await stack.startRun(
    'dba',
    'Sign in, asked through watch',
    tokens.bob,
    calls(call('ask_human', { question: 'What is the code on your authenticator?', secret: 'otp' }, 'q1')),
    calls(call('sign_in', { account: 'ops' }, 'c1')),
    say('signed in'),
  );
  const approval = await pendingSecret(stack, runId);
  const id = approval.trackingId;

  const listed = await cli(['approvals', 'list', '--agent', 'dba']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /\bKIND\b/);
  assert.match(listed.stdout, new RegExp(`${literal(id)}\\s+dba\\s+sign_in\\s+pending\\s+secret\\s`));

  const shown = await cli(['approvals', 'show', id]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, new RegExp(`Approval ${literal(id)} {2}\\(secret, run `));
  assert.match(shown.stdout, /\n {2}question: What is the code on your authenticator\?\n/);
  assert.match(shown.stdout, /\n {2}secret: the one-time code from the authenticator \(otp\), for sign_in\n/);
  assert.match(shown.stdout, /decisions: respond \(supply it\), reject \(refuse: nobody supplies it\)/);
  assert.match(shown.stdout, new RegExp(`to supply it: countersign respond ${literal(id)} `));
  assert.match(shown.stdout, new RegExp(`printf %s "\\$VALUE" \\| countersign respond ${literal(id)}`));
  assert.doesNotMatch(shown.stdout, /arguments:/, 'a secret has no arguments to show');

  const t = terminal(['watch', '--agent', 'dba']);
  const card = await t.show(id);
  assert.match(card, /Decide: \[s\] supply it \/ \[r\] refuse: nobody supplies it \/ \[k\] skip/);
  t.type('s');
  await t.until(/What you type is not shown\. Enter sends it; Ctrl-C goes back\.\r?\n/);
  await t.until(/the one-time code from the authenticator: /);
  // Ctrl-C goes back to the menu; nothing is sent.
  t.press('abandoned\u0003');
  await t.until(/Cancelled; nothing was sent\.\r?\n/);
  await t.until(/Decide: [^\n]*> /);
  assert.equal((await approvalOf(id)).status, 'pending');
  t.type('s');
  await t.until(/the one-time code from the authenticator: /);
  t.press(`${code}\r`);
  await t.until(new RegExp(`${literal(id)}: responded on revision 1 \\(the secret went to the tool`));
  // Still watching: the keys typed reach the menu again, echoed as a terminal does.
  await t.until(/Waiting for approvals\. \[q\]uit > /);
  t.type('q');
  assert.equal(await t.exited, 0, t.errors);
  assert.match(t.screen, /the one-time code from the authenticator: \r?\n/);
  for (const piece of [code, code.slice(4), 'abandoned'])
    assert.equal(t.screen.includes(piece), false, `the terminal showed ${piece}:\n${t.screen}`);

  assert.equal((await stack.result(runId)).status, 'completed');
  assert.deepEqual(
    secretsReceived.filter((r) => r.runId === runId).map((r) => r.secrets.otp),
    [code],
  );
});

test('watch through a pipe takes the next line as the secret, and prints it nowhere', async () => {
  const secret = `watched-${randomUUID()}`;
  const { runId, approval } = await reportRun('Revenue, through watch on a pipe');
  const t = terminal(['watch', '--agent', 'dba'], false);
  await t.show(approval.trackingId);
  t.type('s');
  await t.until(new RegExp(`${literal(LABEL)} \\(the next line; it is not shown\\) > `));
  t.type(secret);
  await t.until(new RegExp(literal(supplied(approval.trackingId))));
  assert.equal(await t.close(), 0, t.errors);
  assert.equal(`${t.screen}${t.errors}`.includes(secret), false);
  assert.equal((await stack.result(runId)).status, 'completed');
  assert.deepEqual(received(runId), [secret]);
});
