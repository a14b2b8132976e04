#!/usr/bin/env node
// Runs node's test runner over the *.test.ts files under the given folders, one process per
// file (the Temporal SDK installs one native Runtime per process).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

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
const browserSuite = roots.every((root) => root.startsWith('test/e2e'));
const concurrency = process.env.TEST_CONCURRENCY ?? (browserSuite ? '1' : '2');
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-timeout=300000', ...files],
  { stdio: 'inherit', env },
);
process.exit(result.status ?? 1);
