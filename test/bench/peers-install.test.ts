import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { peersInstalled } from '../../bench/lib/peers-install.js';

function writeJson(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
}

test('the peers count as installed only with every pinned peer at its version', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-peers-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const pin = (dependencies: Record<string, string>) =>
    writeJson(path.join(dir, 'package.json'), { dependencies });
  writeJson(path.join(dir, 'node_modules', '@langchain', 'langgraph', 'package.json'), { version: '1.7.3' });

  pin({ '@langchain/langgraph': '1.7.3' });
  assert.equal(peersInstalled(dir), true);
  pin({ '@langchain/langgraph': '1.7.3', '@mastra/core': '1.71.0' });
  assert.equal(peersInstalled(dir), false, 'a peer added since the install');
  writeJson(path.join(dir, 'node_modules', '@mastra', 'core', 'package.json'), { version: '1.70.0' });
  assert.equal(peersInstalled(dir), false, 'a peer bumped since the install');
  writeJson(path.join(dir, 'node_modules', '@mastra', 'core', 'package.json'), { version: '1.71.0' });
  assert.equal(peersInstalled(dir), true);
});
