import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Worker } from '@temporalio/worker';
import { startRun } from '../../client/index.js';
import {
  FakeModel,
  HistoryReplayError,
  call,
  calls,
  createTestTemporal,
  readHistoryFile,
  replayHistories,
  say,
  type TestTemporal,
} from '../../testing/index.js';
import { bundleWorkflows, createWorker } from '../../worker/index.js';
import { installTestRuntime } from '../support/worker.js';
import { approve, pendingApproval, refundsAgent, waitFor } from './fixtures.js';

// The replay workflow a team follows: record real runs with `countersign histories download`,
// replay them with replayHistories; a deliberately changed workflow fails that replay.

const BIN = fileURLToPath(new URL('../../bin/countersign.js', import.meta.url));
const ALTERED_WORKFLOWS = fileURLToPath(new URL('../workflow/fixtures/altered-workflow.ts', import.meta.url));

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [BIN, ...args], {
    // Only what the test gives: no TEMPORAL_* of the shell running the suite.
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('countersign histories download, then replayHistories', () => {
  let temporal: TestTemporal;
  let fake: FakeModel;
  let worker: Worker;
  let running: Promise<void>;
  const dir = mkdtempSync(path.join(tmpdir(), 'countersign-histories-'));
  const agent = refundsAgent();
  const taskQueue = `histories-${randomUUID()}`;
  let finished: string;
  let paused: string;

  before(async () => {
    // The altered workflow's non-determinism is provoked on purpose; its warnings are noise.
    installTestRuntime('ERROR');
    temporal = await createTestTemporal({ env: process.env });
    fake = await FakeModel.start();
    worker = await createWorker({
      connection: temporal.nativeConnection,
      namespace: temporal.namespace,
      taskQueue,
      agents: [agent],
      model: { baseUrl: fake.url, apiKey: 'test' },
      workflowBundle: await bundleWorkflows(),
      workerOptions: { shutdownGraceTime: '1 second' },
    });
    running = worker.run();

    // One run approved and finished, one still waiting for its approval, as in production.
    const start = async (label: string, amount: number) => {
      const input = `${label} [${randomUUID().slice(0, 8)}]`;
      fake.script(input, calls(call('refund_order', { orderId: label, amount })), say(`Refunded ${label}.`));
      return (await startRun(temporal.client, { agent, input, taskQueue })).runId;
    };
    finished = await start('F-1', 2000);
    paused = await start('P-1', 3000);
    await approve(temporal.client, finished);
    await temporal.client.workflow.getHandle(finished).result();
    await pendingApproval(temporal.client, paused);
  });

  after(async () => {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await running;
    await fake?.close();
    await temporal?.teardown();
    rmSync(dir, { recursive: true, force: true });
  });

  it('downloads a finished run by id (TEMPORAL_ADDRESS), and its history replays', async () => {
    const out = path.join(dir, 'by-id');
    const result = await cli(['histories', 'download', '--run', finished, '--out', out], {
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: temporal.namespace,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`${finished}: \\d+ events`));
    assert.match(result.stdout, /Wrote 1 history/);
    const file = path.join(out, `${finished}.json`);
    // The file format the replay helper (and test/histories) reads.
    const recorded = readHistoryFile(file);
    assert.equal(recorded.workflowId, finished);
    const events = recorded.history.events ?? [];
    assert.ok(events[0]?.workflowExecutionStartedEventAttributes, 'from its start');
    assert.ok(events.at(-1)?.workflowExecutionCompletedEventAttributes, 'to its end');

    const [replayed] = await replayHistories(out);
    assert.deepEqual(
      { workflowId: replayed?.workflowId, file: replayed?.file, ok: replayed?.ok },
      { workflowId: finished, file, ok: true },
    );
  });

  it('downloads the runs a list query matches (--address), the paused one too; a changed workflow fails their replay', async () => {
    const query = `CountersignAgent = '${agent.name}'`;
    // Lists lag behind writes on a real server: wait until both runs are listed.
    await waitFor(
      async () => ((await temporal.client.workflow.count(query)).count === 2 ? true : undefined),
      'both runs in the list',
    );
    const out = path.join(dir, 'by-query');
    const result = await cli([
      'histories',
      'download',
      '--query',
      query,
      '--out',
      out,
      '--address',
      temporal.address,
      '--namespace',
      temporal.namespace,
      '--json',
    ]);
    assert.equal(result.code, 0, result.stderr);
    const { histories } = JSON.parse(result.stdout) as { histories: { workflowId: string; file: string }[] };
    assert.deepEqual(histories.map((h) => h.workflowId).sort(), [finished, paused].sort());
    assert.deepEqual(readdirSync(out).sort(), [`${finished}.json`, `${paused}.json`].sort());

    // Both replay against the current workflow code, the one paused for its approval included.
    const results = await replayHistories(out);
    assert.equal(results.length, 2);
    assert.ok(results.every((r) => r.ok));

    // Against a workflow with a non-deterministic change, each fails, named with its file.
    await assert.rejects(replayHistories(out, { workflowsPath: ALTERED_WORKFLOWS }), (error: unknown) => {
      assert.ok(error instanceof HistoryReplayError, String(error));
      assert.deepEqual(error.failures.map((f) => f.workflowId).sort(), [finished, paused].sort());
      assert.ok(error.failures.every((f) => f.nondeterministic));
      for (const id of [finished, paused]) {
        assert.ok(
          error.message.includes(`${id} (${path.join(out, `${id}.json`)}): non-determinism:`),
          error.message,
        );
      }
      return true;
    });
  });

  it('says what is wrong: an unknown run, both --run and --query, an empty folder to replay', async () => {
    const out = path.join(dir, 'unknown');
    const unknown = await cli(['histories', 'download', '--run', 'run-nope', '--out', out], {
      TEMPORAL_ADDRESS: temporal.address,
    });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /run run-nope was not found in namespace default/);
    assert.ok(!existsSync(path.join(out, 'run-nope.json')));

    const both = await cli(['histories', 'download', '--run', finished, '--query', 'x', '--out', out]);
    assert.equal(both.code, 1);
    assert.match(both.stderr, /--run <runId> .* or --query <listQuery>, one of the two/);

    await assert.rejects(replayHistories(out), /no history files \(\*\.json\)/);
    await assert.rejects(replayHistories(path.join(dir, 'nowhere')), /no history file or folder at/);
  });
});
