#!/usr/bin/env node
// `npm run build`: the library as JavaScript with its types in dist/, and the inbox's static files
// beside the API that serves them. The demo and the tests run from the TypeScript sources.
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync(new URL('../dist/', import.meta.url), { recursive: true, force: true });
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
  cwd: root,
  stdio: 'inherit',
});
if (result.status !== 0) process.exit(result.status ?? 1);
// What the browser loads: the inbox's type-checking setup (its tsconfig, its types/) stays behind.
const webRoot = fileURLToPath(new URL('../web/', import.meta.url));
const typeChecking = [path.join(webRoot, 'tsconfig.json'), path.join(webRoot, 'types')];
cpSync(webRoot, fileURLToPath(new URL('../dist/web/', import.meta.url)), {
  recursive: true,
  filter: (source) => !typeChecking.includes(path.resolve(source)),
});
console.log('built dist/');
