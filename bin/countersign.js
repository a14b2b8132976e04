#!/usr/bin/env node
// The `countersign` CLI: the compiled library when installed from npm; in Countersign's own
// repository, the TypeScript sources through tsx's loader (a dev dependency), so no build is needed.
import { existsSync } from 'node:fs';

const source = new URL('../cli/main.ts', import.meta.url);
let main;
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(source.href));
} else {
  ({ main } = await import('../dist/cli/main.js'));
}
await main(process.argv);
