#!/usr/bin/env node
// `npm run build`: the library as JavaScript with its types in dist/, and the inbox's static files
// beside the API that serves them. The demo and the tests run from the TypeScript sources.
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync(new URL('../dist/', import.meta.url), { recursive: true, force: true });
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
  cwd: root,
  stdio: 'inherit',
});
if (result.status !== 0) process.exit(result.status ?? 1);
cpSync(new URL('../web/', import.meta.url), new URL('../dist/web/', import.meta.url), { recursive: true });
console.log('built dist/');
