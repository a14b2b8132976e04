import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { opsAgent } from '../../demo/agents/ops.js';
import { call, calls, say } from '../support/fake-model.js';
import { tokens } from '../support/api-agents.js';
import { startStack, type Stack } from '../support/stack.js';

/**
 * The ops demo's read-only rule, through the real worker: a read runs at once, and a read with a
 * second line (which a shell would run too) waits for an operator like any other change.
 */

const dataDir = mkdtempSync(path.join(tmpdir(), 'countersign-ops-rule-'));
let stack: Stack;
before(async () => {
  stack = await startStack({ agents: [opsAgent(dataDir)] });
});
after(async () => {
  await stack?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const shell = (command: string) =>
  calls(call('run_shell_command', { command, cwd: '/', timeoutSeconds: 30 }));

test('a read-only command runs at once', async () => {
  const runId = await stack.startRun(
    'ops',
    'ops rule: read',
    tokens.alice,
    shell('cat /etc/hostname'),
    say('Read.'),
  );
  const output = await stack.result(runId);
  assert.equal(output.status, 'completed');
  assert.deepEqual(output.state?.approvals, []);
  assert.ok(output.state?.events.some((e) => e.type === 'tool.ran'));
});

for (const [name, separator] of [
  ['a line feed', '\n'],
  ['a carriage return', '\r'],
  ['a line separator', '\u2028'],
] as const) {
  test(`a read followed by ${name} and a second command waits for an operator`, async () => {
    const command = `cat /etc/hostname${separator}systemctl restart worker`;
    const runId = await stack.startRun(
      'ops',
      `ops rule: ${name}`,
      tokens.alice,
      shell(command),
      say('Done.'),
    );
    const [pending] = await stack.waitForPending(runId);
    assert.equal(pending!.tool, 'run_shell_command');
    assert.equal(pending!.args.command, command);
    const state = await stack.state(runId);
    assert.ok(!state.events.some((e) => e.type === 'tool.ran'), 'nothing ran');
    await stack.client.workflow.getHandle(runId).cancel();
  });
}
