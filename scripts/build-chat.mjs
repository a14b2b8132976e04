#!/usr/bin/env node
// Bundles the demo's chat page (demo/chat: React and the AI SDK's useChat) into demo/chat/dist/,
// which `npm start` serves at /chat/. Run by `npm ci` (the `prepare` script), so a fresh clone's
// `npm start` has it; run it again after changing the page.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const page = fileURLToPath(new URL('../demo/chat/', import.meta.url));
const out = path.join(page, 'dist');

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { chat: path.join(page, 'src', 'main.tsx') },
  outdir: out,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  jsx: 'automatic',
  minify: true,
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
});
copyFileSync(path.join(page, 'index.html'), path.join(out, 'index.html'));
console.log(`built ${path.relative(process.cwd(), out)}/`);
