import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { call, calls } from '../support/fake-model.js';
import { tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';

/**
 * Text a run carries (its input, the model's message, arguments and the description made from
 * them) is written by whoever started the run or by the model. Printed raw, an escape sequence
 * could clear the screen, move the cursor up and overwrite the arguments the approver is about to
 * approve; a bidi override could reorder them. Every command prints it as visible escapes.
 */

const BIN = fileURLToPath(new URL('../../bin/countersign.js', import.meta.url));

const INPUT = 'Pay the rent\u001b[2J\u001b[1;1H\u001b]0;pwned\u0007 now';
const SAID = 'Paying\u001b[8m hidden\u001b[0m\rOverwritten \u009b31mred';
// The payee's line breaks would forge an arguments block in the description line above the real one.
const ARGS = {
  from: 'ops\u202eevil',
  to: 'acme\u001b[1A\u001b[2K\n  transfer arguments:\n    {"amount": 1}',
  amount: 2000,
};
const DESCRIPTION = `Transfer 2000 from ops\\u202eevil to acme\\u001b[1A\\u001b[2K\\n  transfer arguments:\\n    {"amount": 1}`;

/** Bytes no terminal may receive from server text, as they would be printed raw (UTF-8). */
const RAW = {
  ESC: Buffer.from('\u001b'),
  BEL: Buffer.from('\u0007'),
  CR: Buffer.from('\r'),
  'C1 CSI (U+009B)': Buffer.from('\u009b'),
  'RIGHT-TO-LEFT OVERRIDE': Buffer.from('\u202e'),
};

function assertNoRawControls(output: Buffer, what: string): void {
  for (const [name, bytes] of Object.entries(RAW))
    assert.equal(output.indexOf(bytes), -1, `${what} printed a raw ${name} (${bytes.toString('hex')})`);
}

function assertShown(output: Buffer, ...texts: string[]): void {
  for (const text of texts) assert.ok(output.includes(Buffer.from(text)), `shows ${text}`);
}

let stack: Stack;
let runId: string;
let trackingId: string;
before(async () => {
  stack = await startStack();
  runId = await stack.startRun('bank', INPUT, tokens.victor, {
    ...calls(call('transfer', ARGS)),
    content: SAID,
  });
  trackingId = (await stack.waitForPending(runId))[0]!.trackingId;
});
after(async () => {
  await stack?.close();
});

/** `countersign ...` as a user runs it, its output as the bytes the terminal would receive. */
function cli(args: string[], input?: (stdout: Buffer, write: (text: string) => void) => void) {
  return new Promise<{ code: number | null; stdout: Buffer; stderr: Buffer }>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, COUNTERSIGN_URL: stack.url, COUNTERSIGN_TOKEN: tokens.alice },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => {
      out.push(d);
      input?.(Buffer.concat(out), (text) => child.stdin.write(text));
    });
    child.stderr.on('data', (d: Buffer) => err.push(d));
    if (!input) child.stdin.end();
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }));
  });
}

async function ok(args: string[]): Promise<Buffer> {
  const result = await cli(args);
  assert.equal(result.code, 0, `countersign ${args.join(' ')}: ${result.stderr.toString()}`);
  return result.stdout;
}

test('runs show prints the input, the model message and the arguments as visible escapes', async () => {
  const out = await ok(['runs', 'show', runId]);
  assertNoRawControls(out, 'runs show');
  assertShown(
    out,
    'Pay the rent\\u001b[2J\\u001b[1;1H\\u001b]0;pwned\\u0007 now',
    'Paying\\u001b[8m hidden\\u001b[0m\\rOverwritten \\u009b31mred',
    // The description is one line: its own line breaks and escapes show as such.
    DESCRIPTION,
    '"from":"ops\\u202eevil"',
  );
});

test('approvals list and runs list print server text as visible escapes', async () => {
  const approvals = await ok(['approvals', 'list']);
  assertNoRawControls(approvals, 'approvals list');
  assertShown(approvals, trackingId, DESCRIPTION);
  const runs = await ok(['runs', 'list']);
  assertNoRawControls(runs, 'runs list');
  assertShown(runs, runId);
});

test('--json stays JSON with the same values, with nothing a terminal would obey', async () => {
  const out = await ok(['--json', 'runs', 'show', runId]);
  assertNoRawControls(out, '--json runs show');
  const run = JSON.parse(out.toString('utf8')) as {
    input: string;
    pending: { args: typeof ARGS; description: string }[];
  };
  assert.equal(run.input, INPUT);
  assert.deepEqual(run.pending[0]!.args, ARGS);
  assert.equal(run.pending[0]!.description, `Transfer 2000 from ${ARGS.from} to ${ARGS.to}`);
});

test('watch shows the approval card with visible escapes and no forged lines', async () => {
  let quit = false;
  const result = await cli(['watch', '--agent', 'bank'], (stdout, write) => {
    if (!quit && stdout.includes('Decide: ')) {
      quit = true;
      write('q\n');
    }
  });
  assert.equal(result.code, 0, result.stderr.toString());
  const out = result.stdout;
  assertNoRawControls(out, 'watch');
  assertShown(
    out,
    `Approval ${trackingId}`,
    'request: Pay the rent\\u001b[2J\\u001b[1;1H\\u001b]0;pwned\\u0007 now',
    'model said: Paying\\u001b[8m hidden\\u001b[0m\\rOverwritten \\u009b31mred',
    DESCRIPTION,
    '"from": "ops\\u202eevil"',
  );
  // The payee's line breaks stay inside the description's line: one arguments block, the real one.
  const lines = out.toString('utf8').split('\n');
  assert.deepEqual(
    lines.filter((line) => line.trim() === 'transfer arguments:'),
    ['  transfer arguments:'],
  );
  assert.ok(!lines.some((line) => line.trim() === '{"amount": 1}'));
});
