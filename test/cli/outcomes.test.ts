import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApprovalView } from '../../protocol/index.js';
import { tokens } from '../support/api-agents.js';
import { runCli } from '../support/run-cli.js';
import { startStack, type Stack } from '../support/stack.js';
import {
  attemptsOf,
  toolMessage as readToolMessage,
  unknownRestart as shared,
} from '../support/unknown-restart.js';
import { literal, Terminal } from '../support/terminal.js';

/**
 * Unknown outcomes from the terminal: `restart_service` does not dedupe, and its first attempt on an
 * `unsure-*` service cannot tell whether the restart happened, so the run asks an admin (alice)
 * what happened. The CLI marks such approvals, shows the attempt, and says what each answer means.
 */

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.close();
});

const env = () => ({ ...process.env, COUNTERSIGN_URL: stack.url, COUNTERSIGN_TOKEN: tokens.alice });
const cli = (args: string[]) => runCli(args, env());

async function ok(args: string[]): Promise<string> {
  const result = await cli(args);
  assert.equal(result.code, 0, `countersign ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/** Bob asks for a restart; alice approves it with the CLI; its one attempt ends unknown. */
async function unknownRestart(input: string) {
  const { runId, service, call, outcome } = await shared(stack, input, async (trackingId) => {
    await ok(['approve', trackingId]);
  });
  return { runId, service, callId: call.trackingId, trackingId: outcome.trackingId };
}
const toolMessage = (runId: string) => readToolMessage(stack, runId);

test('approvals list marks an outcome approval; approvals show gives its attempt and what each answer means', async () => {
  const { runId, service, trackingId } = await unknownRestart('cli outcome: shown');
  // Lists read Temporal's visibility store, which catches up with a write a moment later.
  let listed = '';
  while (!listed.includes(trackingId)) {
    if (listed) await sleep(200);
    listed = await ok(['approvals', 'list', '--agent', 'ops']);
  }
  assert.match(listed, /TRACKING ID\s+AGENT\s+TOOL\s+STATUS\s+KIND\s+DEADLINE\s+WHAT/);
  assert.match(
    listed,
    new RegExp(
      `${literal(trackingId)}\\s+ops\\s+restart_service\\s+pending\\s+outcome unknown\\s+\\S+\\s+Nobody knows`,
    ),
  );

  const shown = await ok(['approvals', 'show', trackingId]);
  assert.match(
    shown,
    new RegExp(`^Approval ${literal(trackingId)} {2}\\(outcome unknown, run ${runId}, agent ops\\)$`, 'm'),
  );
  assert.match(shown, /Its attempt ended without the tool saying how\./);
  assert.match(
    shown,
    new RegExp(`restart_service arguments it ran with:\\n {4}\\{\\n {6}"service": "${service}"`),
  );
  assert.match(shown, /^ {2}attempt 1: started \d{4}-\S+ on \S+$/m);
  assert.match(shown, new RegExp(`^ {2}last step: restart of ${service} requested \\(at \\S+\\)$`, 'm'));
  assert.match(
    shown,
    new RegExp(`^ {2}why unknown: the tool could not tell: ${service} did not confirm the restart$`, 'm'),
  );
  assert.match(
    shown,
    /decisions: respond \(it happened, with its result\), approve \(it did not happen: run it again\), reject \(it failed\);/,
  );
  assert.match(shown, /^ {2}status: pending$/m);
  const json = JSON.parse(await ok(['--json', 'approvals', 'show', trackingId])) as ApprovalView;
  assert.equal(json.attempt?.progress?.step, `restart of ${service} requested`);

  // "It happened" with a result the tool's schema refuses, then with one it takes.
  const bad = await cli(['respond', trackingId, '--result', '{"restarted": 42}']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /HTTP 400/);
  assert.match(bad.stderr, /\/result\/restarted/);
  assert.equal(
    await ok(['respond', trackingId, '--result', `{"restarted": "${service}"}`]),
    `${trackingId}: responded on revision 1 (it happened: the model gets your result)\n`,
  );
  assert.equal(await toolMessage(runId), JSON.stringify({ restarted: service }));
  assert.equal(attemptsOf(runId), 1);
  // The audit trail says why nobody knew.
  assert.match(
    await ok(['runs', 'show', runId]),
    new RegExp(
      `tool\\.unknown ${literal(`${runId}.1`)} restart_service \\(attempt 1: the tool could not tell: ${service} did not confirm the restart\\)`,
    ),
  );
});

test('approve runs it again; reject says it failed', async () => {
  const again = await unknownRestart('cli outcome: again');
  assert.equal(
    await ok(['approve', again.trackingId]),
    `${again.trackingId}: approved on revision 1 (it did not happen: the tool runs again)\n`,
  );
  assert.equal(await toolMessage(again.runId), JSON.stringify({ restarted: again.service }));
  assert.equal(attemptsOf(again.runId), 2);

  const failed = await unknownRestart('cli outcome: failed');
  assert.equal(
    await ok(['reject', failed.trackingId, '--message', 'still down']),
    `${failed.trackingId}: rejected on revision 1 (it failed)\n`,
  );
  assert.match(await toolMessage(failed.runId), /did not complete: still down$/);
  assert.equal(attemptsOf(failed.runId), 1);
});

test('the help of approve, reject and respond says what they mean for an unknown outcome', async () => {
  // Commander wraps help text to the terminal's width.
  const help = async (command: string) => (await ok([command, '--help'])).replace(/\s+/g, ' ');
  assert.match(await help('approve'), /unknown outcome[^.]*: it did not happen, run it again/);
  assert.match(await help('reject'), /unknown outcome: it failed/);
  assert.match(await help('respond'), /unknown outcome: it happened, and this was its result/);
});

test('watch shows the attempt, offers the answers in their own words, and asks for the result', async () => {
  // Both wait before the watcher starts: a card that replaced another while a key was on its way
  // would take that key.
  const answered = await unknownRestart('cli outcome: watch');
  const failed = await unknownRestart('cli outcome: watch fails');
  const terminal = new Terminal(['watch', '--agent', 'ops'], env());
  await terminal.until(/Watching .* pending\./);

  const answers = new Map<string, (card: string) => Promise<void>>([
    [
      answered.trackingId,
      async (card) => {
        assert.match(card, /\(outcome unknown, run /);
        assert.match(card, new RegExp(`last step: restart of ${answered.service} requested`));
        assert.match(
          card,
          /Decide: \[s\] it happened, with its result \/ \[a\] it did not happen: run it again \/ \[r\] it failed \/ \[k\] skip \/ \[q\]uit > $/,
        );
        terminal.type('s');
        await terminal.until(
          /Its result, as restart_service would have returned it: \{[^\n]*"restarted"[^\n]*\}\n/,
        );
        await terminal.until(/Result \(JSON, or plain text; empty to go back\) > /);
        terminal.type(`{"restarted": "${answered.service}"}`);
        await terminal.until(
          new RegExp(
            `${literal(answered.trackingId)}: responded on revision 1 \\(it happened: the model gets your result\\)`,
          ),
        );
      },
    ],
    [
      failed.trackingId,
      async () => {
        terminal.type('r');
        await terminal.until(
          /Reason it failed, or what you know of it \(sent to the agent; empty for none\) > /,
        );
        terminal.type('no sign of it in the log');
        await terminal.until(
          new RegExp(`${literal(failed.trackingId)}: rejected on revision 1 \\(it failed\\)`),
        );
      },
    ],
  ]);
  while (answers.size > 0) {
    const card = await terminal.until(/Approval (\S+) [\s\S]*?Decide: [^\n]*> /);
    const answer = answers.get(card[1]!);
    assert.ok(answer, `watch showed ${card[1]}, which this test did not start`);
    answers.delete(card[1]!);
    await answer(card[0]);
  }
  assert.equal(await toolMessage(answered.runId), JSON.stringify({ restarted: answered.service }));
  assert.match(await toolMessage(failed.runId), /did not complete: no sign of it in the log$/);
  assert.equal(await terminal.close(), 0, terminal.errors);
});
