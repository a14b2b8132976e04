import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { findTemporalBinary } from '../../temporal/binaries.js';
import { launchChromium } from '../support/chromium.js';

/**
 * Countersign as a team adopts it: the packed tarball installed into a project outside this
 * repository (it sees no source here), type-checked against the shipped types, and run: its own
 * agent, a worker on a real Temporal dev server through `countersign/testing`, its own express app
 * with the router mounted at `/approvals` behind its own login and session cookie, a run approved
 * in that mounted inbox in Chromium, and replay of that run's history.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const ours = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const versionOf = (name: string) => ours.dependencies[name] ?? ours.devDependencies[name]!;

const work = mkdtempSync(path.join(tmpdir(), 'countersign-adoption-'));
after(() => rmSync(work, { recursive: true, force: true }));

const run = (command: string, args: string[], cwd: string) => {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, CI: 'true' } });
  assert.equal(result.status, 0, `${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
};

/** Where the scenario waits for the inbox: printed once its approval is pending. */
type Handoff = { login: string; inbox: string; trackingId: string };

/** The scenario's stdout lines as they come, its handoff, and how it ended. */
function watch(child: ChildProcess) {
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const report = () => `${lines.join('\n')}\n${stderr}`;
  // 'close', not 'exit': by then every line it printed has been read.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const handoff = new Promise<Handoff>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line.startsWith('{"login"')) resolve(JSON.parse(line) as Handoff);
    });
    void exited.then((code) =>
      reject(new Error(`the scenario ended (${code}) before its approval:\n${report()}`)),
    );
  });
  return { lines, exited, handoff, report };
}

const app = path.join(work, 'app');

// Packing and installing block the event loop: the browser run is a test of its own, so that its
// deadline counts from its own start.
test('a new project installs the packed package and type-checks against it', () => {
  run('npm', ['pack', '--pack-destination', work], root);
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'))!;
  cpSync(new URL('./consumer/', import.meta.url), app, { recursive: true });
  const devDependencies = Object.fromEntries(
    ['typescript', '@types/express', '@types/node'].map((name) => [name, versionOf(name)]),
  );
  writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify(
      {
        name: 'adopting-service',
        private: true,
        type: 'module',
        devDependencies,
      },
      null,
      2,
    ),
  );
  // The README's command: the packed tarball beside the SDK and libraries the service shares with it.
  const shared = ['express', 'zod', '@temporalio/client', '@temporalio/worker', '@temporalio/workflow'];
  run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      `../${tarball}`,
      ...shared.map((name) => `${name}@${versionOf(name)}`),
    ],
    app,
  );
  // Nothing of this repository is reachable from the project: only the installed package.
  const installed = execFileSync('npm', ['ls', 'countersign', '--json'], { cwd: app, encoding: 'utf8' });
  assert.match(installed, /countersign-adoption-.*\.tgz|"version": "0\.1\.0"/);
  run(process.execPath, [path.join(app, 'node_modules/typescript/bin/tsc'), '-p', '.'], app);
});

test('its own app, behind its own login, gets an approval through the inbox mounted at /approvals', async () => {
  const cli = findTemporalBinary('cli', { ...process.env }, [root]);
  assert.ok(cli, 'the Temporal CLI (npm ci installs it into .venv)');
  const browser = await launchChromium();
  const child = spawn(process.execPath, ['build/main.js'], {
    cwd: app,
    env: { PATH: process.env.PATH, TEMPORAL_CLI_PATH: cli },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const scenario = watch(child);
  try {
    const { login, inbox, trackingId } = await scenario.handoff;
    const page = await browser.newPage();
    page.setDefaultTimeout(60_000);
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));

    // Lee signs in through the service's own login, which sends them on to the mounted inbox.
    await page.goto(login);
    await page.getByLabel('User').fill('lee');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(inbox);
    await page.getByRole('heading', { name: 'Waiting for a decision' }).waitFor();
    await page.locator('#live', { hasText: 'live' }).waitFor();
    await page.locator(`a[href="#/approvals/${encodeURIComponent(trackingId)}"]`).click();
    await page.getByRole('heading', { name: /refund/ }).waitFor();
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.locator('section[aria-label="Outcome"] .chip', { hasText: 'approved' }).waitFor();
    await page.close();

    assert.equal(await scenario.exited, 0, `the scenario failed:\n${scenario.report()}`);
    // Everything the inbox asked for was under the mount: nothing of it reached the service's root.
    const origin = new URL(inbox).origin;
    const outside = requested.filter(
      (url) => url.startsWith(origin) && !url.startsWith(inbox) && !url.startsWith(login),
    );
    assert.deepEqual(outside, []);
    const summary = JSON.parse(scenario.lines.at(-1)!);
    assert.deepEqual(summary.hostRequests, []);
    assert.deepEqual(summary.executed, [{ order: 'A-1042', amount: 40 }]);
    assert.equal(summary.replay, 'ok');
    assert.equal(summary.altered, 'failed');
  } finally {
    await browser.close();
    if (child.exitCode === null) child.kill();
  }
});
