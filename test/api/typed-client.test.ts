import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { call, calls, say } from '../support/fake-model.js';
import { toolRuns, tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

/** Issue 41: a client generated from the OpenAPI document, and nothing else, drives a run. */
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = mkdtempSync(path.join(tmpdir(), 'countersign-typed-client-'));

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** tsc over the scratch folder: the driver against the types generated from the served document. */
function typeCheck(): { status: number | null; output: string } {
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', scratch], { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

test('a client generated from the OpenAPI document type-checks and drives a run to its end', async () => {
  const served = await stack.http('GET', '/api/openapi.json');
  assert.equal(served.status, 200);
  cpSync(path.join(root, 'test/api/typed-client'), scratch, { recursive: true });
  symlinkSync(path.join(root, 'node_modules'), path.join(scratch, 'node_modules'), 'dir');
  writeFileSync(path.join(scratch, 'countersign-api.d.ts'), astToString(await openapiTS(served.body)));

  const checked = typeCheck();
  assert.equal(checked.status, 0, checked.output);

  const proposal = { from: 'ops', to: 'acme', amount: 1500, memo: 'typed client' };
  const input = 'typed client: pay acme';
  stack.fake.script(input, calls(call('transfer', proposal)), say('Paid.'));
  // Its types live in the scratch folder only, checked above: here it is what it returns.
  const { driveRun } = (await import(pathToFileURL(path.join(scratch, 'drive-run.ts')).href)) as {
    driveRun(options: object): Promise<Record<string, unknown>>;
  };
  const run = await driveRun({
    baseUrl: stack.url,
    requester: tokens.victor,
    approver: tokens.alice,
    agent: 'bank',
    input,
    waitFor,
  });
  assert.deepEqual(
    { tool: run.tool, args: run.args, approved: run.approved, refused: run.refused, status: run.status },
    {
      tool: 'transfer',
      args: proposal,
      approved: true,
      refused: { status: 409, code: 'already_settled' },
      status: 'completed',
    },
  );
  assert.equal(run.output, 'Paid.');
  assert.deepEqual(
    toolRuns.filter((r) => r.runId === run.runId).map((r) => r.args),
    [proposal],
    'the approved call ran once',
  );
});

test('the generated types refuse a call the document does not describe', () => {
  // Runs after the test above has generated the types into the scratch folder.
  writeFileSync(
    path.join(scratch, 'wrong-call.ts'),
    [
      "import createClient from 'openapi-fetch';",
      "import type { paths } from './countersign-api.js';",
      "const client = createClient<paths>({ baseUrl: 'http://localhost' });",
      "await client.POST('/api/runs', { body: { agentName: 'bank', input: 'x' } });",
      '',
    ].join('\n'),
  );
  const checked = typeCheck();
  assert.notEqual(checked.status, 0);
  assert.match(checked.output, /wrong-call\.ts\(4,/, checked.output);
});
