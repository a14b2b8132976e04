import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { API_ONLY, newest, ours, project, SHARED, temporalCli, watch } from './shapes.js';

/**
 * A team that splits its services: the API service installs no @temporalio/worker and mounts the
 * router; the worker service (the newest shape) runs the agent. A run is started, decided and
 * finished through the API service.
 */
let workerService = '';
test('the worker service installs the newest SDK, zod and express', (t) => {
  workerService = project(
    t,
    'worker-service',
    Object.fromEntries(SHARED.map((name) => [name, newest(name)])),
  );
});

test('an API-only service installs no @temporalio/worker and decides a run the worker service runs', async (t) => {
  assert.ok(workerService, 'the worker service installed');
  for (const name of SHARED) {
    if (!API_ONLY.includes(name))
      assert.equal(ours.peerDependenciesMeta[name]?.optional, true, `${name} is optional`);
  }
  const dir = project(
    t,
    'api-only',
    Object.fromEntries(API_ONLY.map((name) => [name, newest(name)])),
    'tsconfig.api-only.json',
  );
  for (const absent of ['@temporalio/worker', '@temporalio/core-bridge', '@temporalio/testing']) {
    assert.equal(existsSync(path.join(dir, 'node_modules', absent)), false, `${absent} is not installed`);
  }

  const worker = spawn(process.execPath, ['build/worker-service.js'], {
    cwd: workerService,
    env: { PATH: process.env.PATH, TEMPORAL_CLI_PATH: temporalCli() },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const workerOut = watch(worker, '{"address"');
  try {
    const { address, namespace } = (await workerOut.handoff) as { address: string; namespace: string };
    const api = spawn(process.execPath, ['build/api-service.js'], {
      cwd: dir,
      env: { PATH: process.env.PATH, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const apiOut = watch(api, '{"runId"');
    const { output, by } = (await apiOut.handoff) as { output: string; by: string[] };
    assert.equal(await apiOut.exited, 0, apiOut.report());
    assert.equal(output, 'Refunded $25 on A-2001.');
    assert.deepEqual(by, ['lee@example.com']);
    worker.stdin!.end();
    assert.equal(await workerOut.exited, 0, workerOut.report());
    assert.deepEqual(JSON.parse(workerOut.lines.at(-1)!), { executed: [{ order: 'A-2001', amount: 25 }] });
  } finally {
    if (worker.exitCode === null) worker.kill();
  }
});
