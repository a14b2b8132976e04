#!/usr/bin/env node
// `npm run test:schema`: Schemathesis (from .venv, scripts/test-requirements.txt) fuzzes the REST API
// of `npm start` against the OpenAPI document it serves, with every check, as the demo's admin; then
// the chat routes (countersignChat at /chat/api) against theirs (scripts/schemathesis-chat.toml).
// It starts `npm start` on a free port over a temp data dir (its own Temporal dev server and the
// offline demo model), waits until it answers, runs Schemathesis as scripts/schemathesis.toml sets
// it (a fixed seed, a bounded number of examples), stops the stack and prints a closing
// `N passed, N failed` line, counting operations.
// Arguments after `--` go to the REST API's `schemathesis run` (e.g. `--include-path /api/runs`).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const windows = process.platform === 'win32';
const schemathesis = path.join(
  root,
  '.venv',
  windows ? 'Scripts' : 'bin',
  windows ? 'schemathesis.exe' : 'schemathesis',
);
const config = path.join(root, 'scripts', 'schemathesis.toml');
const chatConfig = path.join(root, 'scripts', 'schemathesis-chat.toml');
const READY_MS = 180_000;
const STOP_MS = 30_000;

if (!existsSync(schemathesis)) {
  console.error(
    'schemathesis is not installed in .venv: npm ci installs it, or\n' +
      '.venv/bin/python -m pip install -r scripts/test-requirements.txt',
  );
  process.exit(1);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'countersign-schemathesis-'));
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
// The demo as `npm start` runs it with no configuration: no approvers file (one admin), no real model.
const env = { ...process.env, COUNTERSIGN_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port) };
for (const name of [
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'COUNTERSIGN_APPROVERS_FILE',
  'COUNTERSIGN_PUBLIC_URL',
  'COUNTERSIGN_PAYLOAD_KEYS',
  'COUNTERSIGN_SECRET_KEYS',
  'COUNTERSIGN_CODEC_CORS_ORIGINS',
  'SMTP_URL',
  'COUNTERSIGN_WEBHOOK_URL',
  'TEMPORAL_ADDRESS',
])
  delete env[name];

// Its own process group, so that stopping it reaches npm, tsx, node and the dev server alike.
const stack = spawn('npm', ['start', '--silent'], {
  cwd: root,
  env,
  detached: !windows,
  stdio: ['ignore', 'pipe', 'pipe'],
});
let stackLog = '';
stack.stdout.on('data', (chunk) => (stackLog += chunk));
stack.stderr.on('data', (chunk) => (stackLog += chunk));
const exited = new Promise((resolve) => stack.once('exit', (code, signal) => resolve(signal ?? code)));
/** What the stack printed, for a failure's reader, without the tokens its banner shows. */
const stackOutput = () =>
  stackLog.replace(/((?:token|Bearer)\s*:?\s*)[A-Za-z0-9_-]{16,}/gi, '$1[redacted]').slice(-20_000);

async function stop() {
  if (stack.exitCode === null && stack.signalCode === null) {
    const signal = (name) => (windows ? stack.kill(name) : process.kill(-stack.pid, name));
    signal('SIGTERM');
    const stopped = await Promise.race([exited.then(() => true), sleep(STOP_MS).then(() => false)]);
    if (!stopped) signal('SIGKILL');
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
}

async function ready() {
  const deadline = Date.now() + READY_MS;
  while (Date.now() < deadline) {
    if (stack.exitCode !== null || stack.signalCode !== null) return false;
    // The serving gate answers 503 until the worker and the API are up.
    const answer = await fetch(`${url}/api/openapi.json`).catch(() => undefined);
    if (answer?.status === 200) return true;
    await sleep(500);
  }
  return false;
}

function runSchemathesis(token, reportPath, { document, configFile, extra }) {
  const args = [
    '--config-file',
    configFile,
    'run',
    `${url}${document}`,
    '--checks',
    'all',
    '--report',
    'junit',
    '--report-junit-path',
    reportPath,
    '--no-color',
    ...extra,
  ];
  // The token through the environment (the config reads it), never on a command line.
  const child = spawn(schemathesis, args, {
    cwd: root,
    env: { ...process.env, COUNTERSIGN_TOKEN: token },
    stdio: 'inherit',
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
}

/** Operations passed and failed, from the JUnit report: one test case per operation. */
function counts(reportPath) {
  if (!existsSync(reportPath)) return undefined;
  const xml = readFileSync(reportPath, 'utf8');
  const cases = xml.match(/<testcase\b[^>]*?(\/>|>[\s\S]*?<\/testcase>)/g) ?? [];
  const failed = cases.filter((c) => /<(failure|error)\b/.test(c)).length;
  const skipped = cases.filter((c) => /<skipped\b/.test(c)).length;
  return { passed: cases.length - failed - skipped, failed, skipped };
}

// Interrupted (Ctrl-C reaches this process's group, not the stack's): stop the stack all the same.
for (const name of ['SIGINT', 'SIGTERM']) {
  process.once(name, () => void stop().then(() => process.exit(130)));
}

let code = 1;
try {
  if (!(await ready())) {
    console.error(`npm start did not answer at ${url} within ${READY_MS / 1000} s:\n${stackOutput()}`);
  } else {
    const token = readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
    const reportPath = path.join(dataDir, 'schemathesis-junit.xml');
    const chatReportPath = path.join(dataDir, 'schemathesis-chat-junit.xml');
    const main = await runSchemathesis(token, reportPath, {
      document: '/api/openapi.json',
      configFile: config,
      extra: process.argv.slice(2),
    });
    const chat = await runSchemathesis(token, chatReportPath, {
      document: '/chat/api/openapi.json',
      configFile: chatConfig,
      extra: [],
    });
    code = main || chat;
    // A 500's cause is in the API's log.
    if (code !== 0) console.error(`\nWhat npm start printed:\n${stackOutput()}`);
    const reports = [counts(reportPath), counts(chatReportPath)];
    const result = reports.every(Boolean)
      ? {
          passed: reports[0].passed + reports[1].passed,
          failed: reports[0].failed + reports[1].failed,
          skipped: reports[0].skipped + reports[1].skipped,
        }
      : undefined;
    if (result) {
      if (code !== 0 && result.failed === 0) result.failed = 1;
      console.log(
        `schemathesis: ${result.passed} passed, ${result.failed} failed` +
          (result.skipped ? `, ${result.skipped} skipped` : ''),
      );
    } else {
      console.log('schemathesis: 0 passed, 1 failed');
    }
  }
} finally {
  await stop();
}
process.exit(code);
