import { after, before, test } from 'node:test';
import { runCli } from '../support/run-cli.js';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Running } from '../start/running.js';
import { literal, Terminal } from '../support/terminal.js';

const TRANSFER = ['Transfer', '$2,500', 'from', '4242 4242 4242 4242', 'to', '5555 5555 5555 4444'];

let cs: Running;
// A data dir of the test's own, to see what `npm start` leaves in it after it stops.
const dataDir = mkdtempSync(path.join(tmpdir(), 'countersign-cli-'));
before(async () => {
  cs = await Running.start(dataDir);
});
after(async () => {
  await cs.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, COUNTERSIGN_URL: cs.url, COUNTERSIGN_TOKEN: cs.token, ...extra };
}

/** Runs `countersign ...` as a user would, in a process of its own. */
function cli(args: string[], environment = env()): Promise<Result> {
  return runCli(args, environment);
}

async function ok(args: string[]): Promise<string> {
  const result = await cli(args);
  assert.equal(result.code, 0, `countersign ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

async function startTransfer(): Promise<{ runId: string; trackingId: string }> {
  const out = await ok(['runs', 'start', 'bank-transfer', ...TRANSFER]);
  const runId = /Started (\S+)/.exec(out)?.[1];
  assert.ok(runId, out);
  // The command as this project runs it: `countersign` alone is not on the PATH.
  assert.ok(out.includes(`Follow it with: npx countersign runs show ${runId}`), out);
  return { runId, trackingId: (await cs.pendingOne(runId)).trackingId };
}

test('runs start, approvals list, edit (invalid, then valid), runs show', async () => {
  const { runId, trackingId } = await startTransfer();
  assert.match(
    await ok(['approvals', 'list']),
    new RegExp(`${trackingId.replace('.', '\\.')}\\s+bank-transfer\\s+transfer\\s+pending`),
  );
  assert.match(await ok(['runs', 'list']), new RegExp(`${runId}\\s+bank-transfer\\s+waiting\\s+1`));

  const invalid = await cli(['edit', trackingId, '--args', '{"to":"1234"}']);
  assert.equal(invalid.code, 1);
  assert.match(invalid.stderr, /HTTP 400/);
  assert.match(invalid.stderr, /(args\.to|\/args\/to): /);

  assert.equal(
    (await ok(['edit', trackingId, '--args', '{"amount":2000}', '--message', 'Limit for today'])).trim(),
    `${trackingId}: edited on revision 2`,
  );
  const run = await cs.finished(runId);
  assert.match(run.output!, /changed the amount from \$2,500\.00 to \$2,000\.00/);

  const shown = await ok(['runs', 'show', runId]);
  assert.match(shown, /status: completed/);
  assert.match(
    shown,
    /approval\.decided .* edit by admin via cli "Limit for today" changes: \/amount: 2500 -> 2000/,
  );
  const json = JSON.parse(await ok(['--json', 'runs', 'show', runId])) as { status: string };
  assert.equal(json.status, 'completed');
});

test('approvals list reads every page of pending approvals', async () => {
  const first = await startTransfer();
  const second = await startTransfer();
  // One run a request: the two approvals come from two pages at least.
  const listed = await ok(['approvals', 'list', '--limit', '1']);
  for (const { trackingId } of [first, second]) assert.ok(listed.includes(trackingId), listed);
  const json = JSON.parse(await ok(['--json', 'approvals', 'list', '--limit', '1'])) as {
    approvals: { trackingId: string }[];
    nextPageToken?: string;
  };
  assert.equal(json.nextPageToken, undefined);
  const ids = json.approvals.map((a) => a.trackingId);
  assert.ok(ids.includes(first.trackingId) && ids.includes(second.trackingId));
  for (const run of [first, second]) await ok(['reject', run.trackingId, '--message', 'paging test']);
});

test('runs list pages with --limit and --page-token', async () => {
  const first = await startTransfer();
  const second = await startTransfer();
  // Open runs come newest first; one run a page: the second run, then a hint that leads to the first.
  const page = await ok(['runs', 'list', '--status', 'waiting', '--limit', '1']);
  assert.match(page, new RegExp(`${second.runId}\\s+bank-transfer\\s+waiting\\s+1`));
  assert.ok(!page.includes(first.runId), page);
  const token = /More: --page-token (\S+)/.exec(page)?.[1];
  assert.ok(token, page);
  const next = await ok(['runs', 'list', '--status', 'waiting', '--limit', '1', '--page-token', token]);
  assert.match(next, new RegExp(`${first.runId}\\s+bank-transfer\\s+waiting\\s+1`));
  for (const run of [first, second]) await ok(['reject', run.trackingId, '--message', 'paging test']);
});

test('approve, reject with a message, and a second decision refused', async () => {
  const approved = await startTransfer();
  assert.equal(
    (await ok(['approve', approved.trackingId])).trim(),
    `${approved.trackingId}: approved on revision 1`,
  );
  await cs.finished(approved.runId);

  const rejected = await startTransfer();
  assert.equal(
    (await ok(['reject', rejected.trackingId, '--message', 'Not today'])).trim(),
    `${rejected.trackingId}: rejected on revision 1`,
  );
  assert.match((await cs.finished(rejected.runId)).output!, /Not today/);

  // A decision on a revision that is no longer current changes nothing.
  const edited = await startTransfer();
  // Into the large-transfer tier: the edit is one of two approvals it now needs.
  await ok(['edit', edited.trackingId, '--args', '{"amount": 150000}']);
  const stale = await cli(['--revision', '1', 'approve', edited.trackingId]);
  assert.equal(stale.code, 1);
  assert.match(stale.stderr, /HTTP 412: the proposal changed since you saw it/);
  await ok(['runs', 'cancel', edited.runId]);

  const again = await cli(['approve', rejected.trackingId]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /HTTP 409/);
});

test('respond answers an ask_human question', async () => {
  const out = await ok([
    'runs',
    'start',
    'support-email',
    'Email the customer that we received their message',
  ]);
  const runId = /Started (\S+)/.exec(out)![1]!;
  const question = await cs.pendingOne(runId);
  // Any JSON may answer this question: text that is not JSON is the string typed, unquoted.
  assert.equal(
    (await ok(['respond', question.trackingId, '--result', 'pat@example.com'])).trim(),
    `${question.trackingId}: responded on revision 1`,
  );
  const email = await cs.pendingOne(runId, new Set([question.trackingId]));
  assert.equal(email.args.to, 'pat@example.com');
  // A reason is optional, as in every other channel.
  assert.equal(
    (await ok(['reject', email.trackingId])).trim(),
    `${email.trackingId}: rejected on revision 1`,
  );
  const run = await cs.finished(runId);
  assert.ok(
    run.audit.some(
      (e) => e.type === 'approval.decided' && e.decision === 'reject' && e.message === undefined,
    ),
  );

  // JSON still reads as JSON: a quoted string is the string inside.
  const again = await cs.startRun('support-email', 'Email the customer that we received their message');
  const second = await cs.pendingOne(again);
  await ok(['respond', second.trackingId, '--result', '"sam@example.com"']);
  const secondEmail = await cs.pendingOne(again, new Set([second.trackingId]));
  assert.equal(secondEmail.args.to, 'sam@example.com');
  await ok(['reject', secondEmail.trackingId, '--message', 'No need']);
});

test('runs cancel: the run ends cancelled by the token holder, through the cli', async () => {
  const { runId, trackingId } = await startTransfer();
  assert.equal((await ok(['runs', 'cancel', runId])).trim(), `${runId}: cancelling`);
  assert.equal((await cs.next(runId, new Set([trackingId]))).status, 'cancelled');
  const shown = await ok(['runs', 'show', runId]);
  assert.match(shown, /status: cancelled/);
  assert.match(shown, /run\.cancelled by admin via cli/);
  assert.match(
    shown,
    new RegExp(`approval\\.settled ${trackingId.replace('.', '\\.')} transfer -> cancelled`),
  );
  const again = await cli(['runs', 'cancel', runId]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /HTTP 409: run .* has already ended/);
});

test('runs pause and resume: the run says paused, its approval stays decidable, and the resume goes on', async () => {
  const { runId, trackingId } = await startTransfer();
  assert.equal(
    (await ok(['runs', 'pause', runId, '--message', 'checking the payee'])).trim(),
    `${runId}: pausing`,
  );
  for (let tries = 0; (await cs.run(runId)).status !== 'paused'; tries++) {
    assert.ok(tries < 600, 'the run never paused');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const twice = await cli(['runs', 'pause', runId]);
  assert.equal(twice.code, 1);
  assert.match(twice.stderr, /HTTP 409: run .* is already paused/);
  // Approved while paused: the transfer waits for the resume.
  await ok(['approve', trackingId]);
  assert.equal((await cs.run(runId)).status, 'paused');
  assert.equal((await ok(['resume', runId, '--message', 'Payee checked.'])).trim(), `${runId}: resuming`);
  assert.equal((await cs.finished(runId)).status, 'completed');
  const shown = await ok(['runs', 'show', runId]);
  assert.match(shown, /run\.paused by admin via cli/);
  assert.match(shown, /run\.resumed by admin via cli/);
});

test('errors: clear messages and a non-zero exit', async () => {
  const badToken = await cli(['runs', 'list'], env({ COUNTERSIGN_TOKEN: 'not-a-real-token-at-all' }));
  assert.equal(badToken.code, 1);
  assert.match(badToken.stderr, /HTTP 401: .*--token or COUNTERSIGN_TOKEN/);

  const down = await cli(['runs', 'list'], env({ COUNTERSIGN_URL: 'http://127.0.0.1:9' }));
  assert.equal(down.code, 1);
  assert.match(down.stderr, /cannot reach Countersign at http:\/\/127\.0\.0\.1:9 .*COUNTERSIGN_URL/);

  const unknown = await cli(['approve', 'run-nope.1']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /HTTP 404/);

  // The answer is read by the approval's schema (test/cli/answers.test.ts): the approval comes first.
  const noApproval = await cli(['respond', 'run-nope.1', '--result', '{nope']);
  assert.equal(noApproval.code, 1);
  assert.match(noApproval.stderr, /HTTP 404/);

  const agent = await cli(['runs', 'start', 'no-such-agent', 'hello']);
  assert.equal(agent.code, 1);
  assert.match(agent.stderr, /HTTP 422: no agent no-such-agent/);
});

test('the token defaults to the admin token in the data dir', async () => {
  const environment = env({ COUNTERSIGN_DATA_DIR: cs.dataDir });
  delete environment.COUNTERSIGN_TOKEN;
  const result = await cli(['approvals', 'list'], environment);
  assert.equal(result.code, 0, result.stderr);
});

test('watch: approvals arrive live and are decided from the terminal', async () => {
  const terminal = new Terminal(['watch', '--agent', 'bank-transfer'], env());
  await terminal.until(/Watching .* pending\./);

  const first = await cs.startRun('bank-transfer', TRANSFER.join(' '));
  const card = await terminal.decide(`${first}.1`, 'a');
  assert.match(
    card,
    /request: Transfer \$2,500[\s\S]*"amount": 2500[\s\S]*Decide: \[a\]pprove \/ \[e\]dit \/ \[r\]eject/,
  );
  // Who must approve, and the rule that asked.
  assert.match(
    card,
    /needs:\n {4}treasury or admin: 0 of 1 \(transfer: amount over \$1,000 and at most \$100,000\)/,
  );
  assert.match((await cs.finished(first)).output!, /Transferred \$2,500\.00/);

  const second = await cs.startRun('bank-transfer', TRANSFER.join(' '));
  await terminal.decide(`${second}.1`, 'r', 'Over the daily limit');
  assert.match((await cs.finished(second)).output!, /Over the daily limit/);

  assert.equal(await terminal.close(), 0, terminal.errors);
});

/** The approval's current arguments with `changes` over them: the whole body REST takes. */
async function editElsewhere(trackingId: string, changes: Record<string, unknown>): Promise<void> {
  const { body } = await cs.api<{ args: Record<string, unknown> }>('GET', `/api/approvals/${trackingId}`);
  await cs.settle(trackingId, { type: 'edit', args: { ...body.args, ...changes } as never });
}

test('watch: an edit gives only the fields it changes; "more waiting" counts what is pending; q quits while idle', async () => {
  const terminal = new Terminal(['watch', '--agent', 'bank-transfer'], env());
  await terminal.until(/Watching .* pending\. Ctrl-D or q quits\.\n/);
  // Neither may count as waiting: one already decided, one of another agent still pending.
  const decided = await cs.startRun('bank-transfer', TRANSFER.join(' '));
  await cs.settle((await cs.pendingOne(decided)).trackingId, { type: 'reject' });
  const other = await cs.startRun('support-email', 'Email the customer that we received their message');
  const question = await cs.pendingOne(other);

  const runId = await cs.startRun('bank-transfer', TRANSFER.join(' '));
  const trackingId = `${runId}.1`;
  await terminal.show(trackingId);
  terminal.type('e');
  await terminal.until(/Current arguments: \{[^\n]*"amount":2500[^\n]*\}\nChanged fields as JSON[^\n]*> /);
  terminal.type('{"amount": 2000}');
  // The fields left out keep their values: only the amount is an edit.
  const printed = await terminal.until(
    new RegExp(`^Changes: (.*)\\n${literal(trackingId)}: edited on revision 2\\n`, 'm'),
    /HTTP \d{3}/,
  );
  assert.equal(printed[1], 'amount: 2500 -> 2000');
  const idle = await terminal.until(/([\s\S]*?)Waiting for approvals\. \[q\]uit > /);
  assert.doesNotMatch(idle[1]!, /more waiting/);
  assert.equal(idle[1], '');

  const run = await cs.finished(runId);
  assert.match(run.output!, /\$2,000\.00/);
  const shown = await ok(['runs', 'show', runId]);
  assert.match(shown, /approval\.decided .* edit by admin via cli changes: \/amount: 2500 -> 2000\n/);

  // Nothing pending for this watcher: q quits, as the banner says.
  terminal.type('q');
  assert.equal(await terminal.exited, 0, terminal.errors);
  await ok(['reject', question.trackingId]);
});

test('watch: an approval changed or decided elsewhere while shown is shown anew, or left with a note', async () => {
  const terminal = new Terminal(['watch', '--agent', 'bank-transfer'], env());
  await terminal.until(/Watching .* pending\./);
  const runId = await cs.startRun('bank-transfer', TRANSFER.join(' '));
  const trackingId = `${runId}.1`;
  await terminal.show(trackingId);

  // Edited elsewhere into the large-transfer tier: still pending, shown again as it is now.
  await editElsewhere(trackingId, { amount: 150000 });
  await terminal.until(
    new RegExp(
      `${literal(trackingId)} changed elsewhere \\(now revision 2\\); shown again as it is now\\.\\n`,
    ),
  );
  const again = await terminal.show(trackingId);
  assert.match(again, /"amount": 150000/);
  assert.match(again, /revision 2;/);

  // Decided elsewhere: who decided, and on to the next prompt.
  await cs.settle(trackingId, { type: 'reject', message: 'Not this week' });
  await terminal.until(
    new RegExp(
      `^${literal(trackingId)} was decided elsewhere by admin \\(rejected\\): "Not this week"\\. Moving on\\.\\nWaiting for approvals\\. \\[q\\]uit > `,
      'm',
    ),
  );
  terminal.type('q');
  assert.equal(await terminal.exited, 0, terminal.errors);
});

/** The API behind a proxy that holds the event stream: a watcher that never hears of any change. */
async function withoutEvents(upstream: string): Promise<{ url: string; close(): Promise<void> }> {
  const target = new URL(upstream);
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/api/events')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': held\n\n');
      return;
    }
    const forward = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

test('watch: a key pressed on an approval changed or decided elsewhere says what happened and asks again', async () => {
  const proxy = await withoutEvents(cs.url);
  try {
    const runId = await cs.startRun('bank-transfer', TRANSFER.join(' '));
    const trackingId = `${runId}.1`;
    await cs.pendingOne(runId);
    const terminal = new Terminal(['watch', '--agent', 'bank-transfer'], env({ COUNTERSIGN_URL: proxy.url }));
    await terminal.show(trackingId);

    // Changed since shown: refused as stale, then shown as it is now.
    await editElsewhere(trackingId, { amount: 150000 });
    terminal.type('a');
    await terminal.until(/^HTTP 412: [^\n]*\n/m);
    await terminal.until(
      new RegExp(
        `^${literal(trackingId)} changed elsewhere \\(now revision 2\\); shown again as it is now\\.\\n`,
        'm',
      ),
    );
    assert.match(await terminal.show(trackingId), /"amount": 150000/);

    // Settled since shown: refused, what became of it, and a new prompt.
    await cs.settle(trackingId, { type: 'reject' });
    terminal.type('a');
    await terminal.until(/^HTTP 409: [^\n]*\n/m);
    await terminal.until(
      new RegExp(
        `^${literal(trackingId)} was decided elsewhere by admin \\(rejected\\)\\. Moving on\\.\\nWaiting for approvals\\. \\[q\\]uit > `,
        'm',
      ),
    );
    terminal.type('q');
    assert.equal(await terminal.exited, 0, terminal.errors);
  } finally {
    await proxy.close();
  }
});

/** The id of a process that has ended. */
function endedPid(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolve(child.pid!));
  });
}

test('the URL defaults to the instance npm start runs over the data dir, whatever its port', async () => {
  const file = path.join(dataDir, 'instance.json');
  const instance = JSON.parse(readFileSync(file, 'utf8')) as { url: string; pid: number };
  assert.equal(instance.url, cs.url);
  assert.equal(instance.pid, process.pid);

  const local = env({ COUNTERSIGN_DATA_DIR: dataDir });
  delete local.COUNTERSIGN_URL;
  delete local.COUNTERSIGN_TOKEN;
  const found = await cli(['approvals', 'list'], local);
  assert.equal(found.code, 0, found.stderr);
  // --url (or COUNTERSIGN_URL) comes first.
  const flagged = await cli(['--url', 'http://127.0.0.1:9', 'approvals', 'list'], local);
  assert.equal(flagged.code, 1);
  assert.match(flagged.stderr, /cannot reach Countersign at http:\/\/127\.0\.0\.1:9 \(/);

  const other = mkdtempSync(path.join(tmpdir(), 'countersign-cli-instance-'));
  try {
    copyFileSync(path.join(dataDir, 'admin-token'), path.join(other, 'admin-token'));
    const elsewhere = { ...local, COUNTERSIGN_DATA_DIR: other };
    // A file whose process has ended is not followed.
    const write = (url: string, pid: number) =>
      writeFileSync(path.join(other, 'instance.json'), JSON.stringify({ url, pid, startedAt: '' }));
    write(cs.url, await endedPid());
    const stale = await cli(['approvals', 'list'], elsewhere);
    assert.equal(stale.code, 1);
    assert.ok(!stale.stderr.includes(cs.url), stale.stderr);
    // A live one that does not answer is named in the error.
    write('http://127.0.0.1:9', process.pid);
    const gone = await cli(['approvals', 'list'], elsewhere);
    assert.equal(gone.code, 1);
    assert.ok(
      gone.stderr.includes(
        `cannot reach Countersign at http://127.0.0.1:9, as ${path.join(other, 'instance.json')} says`,
      ),
      gone.stderr,
    );
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
});

// Last: it stops the instance this file runs on.
test('a clean stop removes the instance file', async () => {
  assert.ok(existsSync(path.join(dataDir, 'instance.json')));
  await cs.stop();
  assert.ok(!existsSync(path.join(dataDir, 'instance.json')));
});
