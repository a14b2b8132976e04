import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { findTemporalBinary } from '../../temporal/binaries.js';

/**
 * Countersign as a team adopts it: the packed tarball installed into a project outside this
 * repository (it sees no source here), type-checked against the shipped types, and run: its own
 * agent, a worker on a real Temporal dev server through `countersign/testing`, its own express app
 * with the router mounted under a path of its own behind its own authentication, a run approved
 * over REST, and replay of that run's history.
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

test('a new project installs the packed package, type-checks against it, and gets an approval through its own app', () => {
  run('npm', ['pack', '--pack-destination', work], root);
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'))!;
  const app = path.join(work, 'app');
  cpSync(new URL('./consumer/', import.meta.url), app, { recursive: true });
  const dependencies = Object.fromEntries(
    ['express', 'zod', '@temporalio/client', '@temporalio/worker', '@temporalio/workflow'].map((name) => [
      name,
      versionOf(name),
    ]),
  );
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
        dependencies: { countersign: `file:../${tarball}`, ...dependencies },
        devDependencies,
      },
      null,
      2,
    ),
  );
  run('npm', ['install', '--no-audit', '--no-fund'], app);
  // Nothing of this repository is reachable from the project: only the installed package.
  const installed = execFileSync('npm', ['ls', 'countersign', '--json'], { cwd: app, encoding: 'utf8' });
  assert.match(installed, /countersign-adoption-.*\.tgz|"version": "0\.1\.0"/);
  run(process.execPath, [path.join(app, 'node_modules/typescript/bin/tsc'), '-p', '.'], app);

  const cli = findTemporalBinary('cli', { ...process.env }, [root]);
  assert.ok(cli, 'the Temporal CLI (npm ci installs it into .venv)');
  const scenario = spawnSync(process.execPath, ['build/main.js'], {
    cwd: app,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, TEMPORAL_CLI_PATH: cli },
    timeout: 300_000,
  });
  assert.equal(scenario.status, 0, `the scenario failed:\n${scenario.stdout}\n${scenario.stderr}`);
  const summary = JSON.parse(scenario.stdout.trim().split('\n').at(-1)!);
  assert.deepEqual(summary.executed, [{ order: 'A-1042', amount: 40 }]);
  assert.equal(summary.replay, 'ok');
  assert.equal(summary.altered, 'failed');
});
