import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { sendDecision } from '../../client/index.js';
import { bundleWorkflows } from '../../worker/index.js';
import { call, calls, say } from '../support/fake-model.js';
import { admin, startHarness, uniqueInput, waitFor, type Harness } from './fixtures/harness.js';
import { ledgerAgent } from './fixtures/ledger-agent.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

describe('worker crashes', () => {
  let h: Harness;
  let dir: string;
  let bundlePath: string;
  const paths = { ledger: '', release: '' };
  let child: ChildProcess | undefined;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'countersign-crash-'));
    paths.ledger = join(dir, 'ledger.txt');
    paths.release = join(dir, 'release');
    bundlePath = join(dir, 'workflows.js');
    writeFileSync(bundlePath, (await bundleWorkflows()).code);
    h = await startHarness({ worker: false, taskQueue: `crash-${randomUUID()}` });
  });
  after(async () => {
    child?.kill('SIGKILL');
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts the worker in a child process and waits until it polls. */
  async function startChild(): Promise<ChildProcess> {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'test/workflow/fixtures/worker-main.ts'], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...process.env,
        CHILD_TEMPORAL_ADDRESS: h.address,
        CHILD_NAMESPACE: h.namespace,
        CHILD_TASK_QUEUE: h.taskQueue,
        CHILD_MODEL_URL: h.fake.url,
        CHILD_LEDGER: paths.ledger,
        CHILD_RELEASE: paths.release,
        CHILD_BUNDLE: bundlePath,
      },
    });
    await new Promise<void>((resolve, reject) => {
      let out = '';
      proc.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('worker ready')) resolve();
      });
      proc.once('exit', (code) => reject(new Error(`worker exited early (${code})`)));
    });
    child = proc;
    return proc;
  }

  async function killChild(): Promise<void> {
    const proc = child!;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
    child = undefined;
  }

  function ledger(): string[] {
    return existsSync(paths.ledger) ? readFileSync(paths.ledger, 'utf8').trim().split('\n') : [];
  }

  it('loses nothing and runs no tool twice when the worker is killed while approvals wait and while a tool runs', async () => {
    const agent = ledgerAgent(paths);
    const input = uniqueInput('post two entries');
    const conversation = h.fake.script(
      input,
      calls(
        call('post_entry', { entry: 'rent', amount: 900 }, 'k1'),
        call('post_entry', { entry: 'fees', amount: 15 }, 'k2'),
      ),
      say('posted'),
    );
    await startChild();
    const runId = await h.start(agent, input);
    const pending = await h.waitForPending(runId, 2);
    const [first, second] = [
      pending.find((p) => p.toolCallId === 'k1')!,
      pending.find((p) => p.toolCallId === 'k2')!,
    ];

    // Killed while both approvals wait: the decision reaches the server with no worker alive.
    await killChild();
    const noWorker = await sendDecision(
      h.client,
      {
        trackingId: first.trackingId,
        decision: { type: 'approve' },
        approver: admin,
        channel: 'api',
        requestId: randomUUID(),
        revision: first.revision,
      },
      { waitMs: 300 },
    );
    // Taken by the server, not yet by the workflow: an API answers 202.
    assert.equal(noWorker, null);
    await startChild();

    // Killed again after the tool's side effect, before its activity completed.
    await waitFor(
      async () => (ledger().includes(`effect ${runId}/k1`) ? true : undefined),
      'the first effect',
    );
    await killChild();
    writeFileSync(paths.release, '');
    await startChild();

    const approved = await h.decide(second.trackingId, { type: 'approve' });
    assert.equal(approved.status, 'approved');
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'posted' });

    // The retried attempt carried the same idempotency key, so the effect happened once.
    assert.deepEqual(
      ledger()
        .filter((line) => line.startsWith('effect'))
        .sort(),
      [`effect ${runId}/k1`, `effect ${runId}/k2`],
    );
    assert.ok(ledger().includes(`dedup ${runId}/k1`));
    assert.match(conversation.toolMessages().get('k1')!, /"deduplicated":true/);
    const state = await h.state(runId);
    assert.deepEqual(
      state.approvals.map((a) => a.status),
      ['approved', 'approved'],
    );
    assert.equal(state.events.filter((e) => e.type === 'tool.ran').length, 2);
    await h.saveHistory('worker-crash', runId);
    await killChild();
  });
});
