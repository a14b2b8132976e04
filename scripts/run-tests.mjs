#!/usr/bin/env node
// Runs node's test runner over the *.test.ts files under the given folders, one process per
// file (the Temporal SDK installs one native Runtime per process).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const roots = process.argv.slice(2);
if (roots.length === 0) {
  console.error('usage: run-tests.mjs <folder or file> [...]');
  process.exit(2);
}
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
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
