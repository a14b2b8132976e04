#!/usr/bin/env node
// Runs node's test runner over the *.test.ts files under the given folders, one process per
// file (the Temporal SDK installs one native Runtime per process).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

// --visibility-lag-ms=N: the API's list queries answer N ms late, and the dev server's lists trail
// its writes (test/support/visibility-lag.ts), as on a real cluster's Elasticsearch.
const LAG_FLAG = '--visibility-lag-ms=';
const lagArg = process.argv.slice(2).find((arg) => arg.startsWith(LAG_FLAG));
const roots = process.argv.slice(2).filter((arg) => arg !== lagArg);
if (roots.length === 0) {
  console.error('usage: run-tests.mjs [--visibility-lag-ms=N] <folder or file> [...]');
  process.exit(2);
}
const env = lagArg
  ? { ...process.env, COUNTERSIGN_TEST_VISIBILITY_LAG_MS: lagArg.slice(LAG_FLAG.length) }
  : process.env;
// Suites with their own npm scripts are not part of `npm test`.
const separate = new Set(['test/e2e', 'test/faults', 'test/adoption']);

function collect(dir, out) {
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) {
      if (!separate.has(full) || roots.includes(full)) collect(full, out);
    } else if (name.endsWith('.test.ts')) {
      out.push(full);
    }
  }
  return out;
}

const files = roots.flatMap((root) => (statSync(root).isDirectory() ? collect(root, []) : [root]));
if (files.length === 0) {
  console.error(`no test files under ${roots.join(', ')}`);
  process.exit(1);
}
// Browser suites run one file at a time: each file's Chromium, Temporal server and worker side by
// side on two cores starve the inbox's live feed, whose late reads the pages then wait for.
// The adoption suite too, and with a longer deadline: each of its files packs the package and
// installs projects of its own from the registry before it runs anything.
const browserSuite = roots.every((root) => root.startsWith('test/e2e'));
const installSuite = roots.every((root) => root.startsWith('test/adoption'));
const concurrency = process.env.TEST_CONCURRENCY ?? (browserSuite || installSuite ? '1' : '2');
// TEST_TIMEOUT_MS: each test's deadline (default 300000), lowered only to try out a hang.
const timeout = process.env.TEST_TIMEOUT_MS ?? (installSuite ? '900000' : '300000');
// --test-force-exit: a file whose tests are done exits even if a timed-out test left a server,
// worker or socket open. Detached: the runner, its file processes and all they spawn (temporal
// dev servers, workers) share a process group of their own, which is killed as a whole below.
const runner = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-force-exit',
    `--test-concurrency=${concurrency}`,
    `--test-timeout=${timeout}`,
    ...files,
  ],
  { stdio: 'inherit', env, detached: true },
);
const killGroup = (signal) => {
  try {
    process.kill(-runner.pid, signal);
    return true;
  } catch {
    return false; // ESRCH: nothing of the group is left
  }
};
// Out of the terminal's process group, the runner no longer gets Ctrl-C or CI's SIGTERM itself.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => killGroup(signal));
runner.on('exit', async (code, signal) => {
  // Whatever the file processes orphaned (a timed-out test's server, a worker) is still in the
  // group and would keep the CI job alive: SIGTERM, then SIGKILL what ignores it for 5 s.
  if (killGroup('SIGTERM')) {
    for (let waited = 0; waited < 5000 && killGroup(0); waited += 100) await sleep(100);
    killGroup('SIGKILL');
  }
  process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
});
