import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { findTemporalBinary } from '../../temporal/binaries.js';
import { launchChromium } from '../support/chromium.js';

/**
 * Countersign as teams adopt it (the three adoption tests use these): the packed tarball installed, as the README says, into projects
 * outside this repository (they see no source here) beside the SDK and libraries the team already
 * has, in three shapes: the newest of those the registry serves, the oldest our peer ranges allow,
 * and an API-only service that installs no `@temporalio/worker`. Each shape keeps one copy of every
 * shared package, type-checks against the shipped types, and gets a run approved end to end: its
 * own agent, a worker on a real Temporal dev server, its own express app mounting the router at
 * `/approvals` behind its own login. The newest shape runs on Node 20 (approved in the mounted
 * inbox in Chromium, its history replayed) and on Node 22 and 24 from PyPI's wheels.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
export const ours = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  devDependencies: Record<string, string>;
};

/** What the README tells a team to install beside the tarball: a worker service needs all of it. */
export const SHARED = [
  '@temporalio/client',
  '@temporalio/common',
  '@temporalio/proto',
  '@temporalio/workflow',
  '@temporalio/activity',
  '@temporalio/worker',
  '@temporalio/testing',
  'zod',
  'express',
];
/** A service that only serves the API leaves out the worker's packages. */
export const API_ONLY = SHARED.filter(
  (name) => !['@temporalio/activity', '@temporalio/worker', '@temporalio/testing'].includes(name),
);

const work = mkdtempSync(path.join(tmpdir(), 'countersign-adoption-'));
after(() => rmSync(work, { recursive: true, force: true }));

export const run = (command: string, args: string[], cwd: string) => {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, CI: 'true' } });
  assert.equal(result.status, 0, `${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
};

/** The newest version the registry serves, as `npm install <name>` gets it. */
export const newest = (name: string) => run('npm', ['view', name, 'version'], work).trim();
/** The lowest version our peer range for it allows. */
export function oldest(name: string): string {
  const range = ours.peerDependencies[name];
  const floor = /^\^(\d+\.\d+\.\d+)$/.exec(range ?? '')?.[1];
  assert.ok(floor, `${name}: a peer range of the form ^x.y.z, not ${range}`);
  return floor;
}

let tarball = '';
function pack() {
  if (tarball) return tarball;
  run('npm', ['pack', '--pack-destination', work], root);
  tarball = path.join(work, readdirSync(work).find((name) => name.endsWith('.tgz'))!);
  return tarball;
}

/**
 * A project of the team's, installed as the README says: the tarball and the shared packages at
 * `versions`. Checks one copy of each shared package, at the version asked for, and type-checks
 * the project's code with `tsconfig`.
 */
export function project(
  t: TestContext,
  name: string,
  versions: Record<string, string>,
  tsconfig = 'tsconfig.json',
) {
  const dir = path.join(work, name);
  cpSync(new URL('./consumer/', import.meta.url), dir, { recursive: true });
  const devDependencies = Object.fromEntries(
    ['typescript', '@types/express', '@types/node'].map((dev) => [dev, ours.devDependencies[dev]!]),
  );
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: `adopting-${name}`, private: true, type: 'module', devDependencies }, null, 2),
  );
  run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      pack(),
      ...Object.entries(versions).map(([shared, version]) => `${shared}@${version}`),
    ],
    dir,
  );
  const installed = execFileSync('npm', ['ls', 'countersign', '--json'], { cwd: dir, encoding: 'utf8' });
  assert.match(installed, /"version": "0\.1\.0"/);
  for (const [shared, version] of Object.entries(versions)) {
    // Every copy anywhere in the tree: a second one would be a second SDK runtime or zod.
    const copies = run('npm', ['ls', shared, '--all', '--parseable'], dir).trim().split('\n');
    assert.deepEqual(copies, [path.join(dir, 'node_modules', shared)], `${name}: one copy of ${shared}`);
    const got = JSON.parse(readFileSync(path.join(dir, 'node_modules', shared, 'package.json'), 'utf8'));
    assert.equal(got.version, version, `${name}: ${shared} at ${version}`);
  }
  run(process.execPath, [path.join(dir, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], dir);
  const size = Number(run('du', ['-sk', path.join(dir, 'node_modules')], dir).split('\t')[0]);
  t.diagnostic(`${name}: node_modules ${Math.round(size / 1024)} MiB; ${JSON.stringify(versions)}`);
  return dir;
}

/** Where the scenario waits for the inbox: printed once its approval is pending. */
type Handoff = { login: string; inbox: string; trackingId: string };

/** A process's stdout lines as they come, its first JSON line, and how it ended. */
export function watch(child: ChildProcess, first: string) {
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const report = () => `${lines.join('\n')}\n${stderr}`;
  // 'close', not 'exit': by then every line it printed has been read.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const handoff = new Promise<unknown>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line.startsWith(first)) resolve(JSON.parse(line));
    });
    void exited.then((code) =>
      reject(new Error(`it ended (${code}) before printing ${first}:\n${report()}`)),
    );
  });
  return { lines, exited, handoff, report };
}

export function temporalCli() {
  const cli = findTemporalBinary('cli', { ...process.env }, [root]);
  assert.ok(cli, 'the Temporal CLI (npm ci installs it into .venv)');
  return cli;
}

/** Lee decides over REST with the session the service's own login gives, as the inbox would. */
async function approveOverRest({ login, inbox, trackingId }: Handoff) {
  const signedIn = await fetch(login, {
    method: 'POST',
    body: new URLSearchParams({ user: 'lee' }),
    redirect: 'manual',
  });
  const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
  const approval = `${inbox}api/approvals/${encodeURIComponent(trackingId)}`;
  const shown = await fetch(approval, { headers: { cookie } });
  const decided = await fetch(`${approval}/decision`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json', 'if-match': shown.headers.get('etag')! },
    body: JSON.stringify({ type: 'approve' }),
  });
  assert.equal(decided.status, 200, await decided.text());
}

/** Lee signs in through the service's own login, which sends them on to the mounted inbox, and approves there. */
async function approveInChromium({ login, inbox, trackingId }: Handoff) {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(60_000);
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
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
    // Everything the inbox asked for was under the mount: nothing of it reached the service's root.
    const origin = new URL(inbox).origin;
    const outside = requested.filter(
      (url) => url.startsWith(origin) && !url.startsWith(inbox) && !url.startsWith(login),
    );
    assert.deepEqual(outside, []);
  } finally {
    await browser.close();
  }
}

/** The all-in-one scenario (`build/main.js`) on `node`, its approval given by `approve`. */
export async function scenario(dir: string, node: string, approve: 'chromium' | 'rest') {
  const child = spawn(node, ['build/main.js'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      TEMPORAL_CLI_PATH: temporalCli(),
      DECIDED_VIA: approve === 'rest' ? 'api' : 'inbox',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const watched = watch(child, '{"login"');
  try {
    const handoff = (await watched.handoff) as Handoff;
    await (approve === 'chromium' ? approveInChromium(handoff) : approveOverRest(handoff));
    assert.equal(await watched.exited, 0, `the scenario failed:\n${watched.report()}`);
    const summary = JSON.parse(watched.lines.at(-1)!);
    assert.deepEqual(summary.hostRequests, []);
    assert.deepEqual(summary.executed, [{ order: 'A-1042', amount: 40 }]);
    assert.equal(summary.replay, 'ok');
    assert.equal(summary.altered, 'failed');
  } finally {
    if (child.exitCode === null) child.kill();
  }
}
