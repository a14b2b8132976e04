import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../test/faults/support/child.js';

/** The peers live in a package of their own, installed on first use so the root install stays lean. */
export function ensurePeersInstalled(): void {
  const peers = path.join(REPO_ROOT, 'bench', 'peers');
  if (existsSync(path.join(peers, 'node_modules'))) return;
  console.log('bench: installing the peers (npm ci --prefix bench/peers)...');
  const result = spawnSync('npm', ['ci', '--prefix', peers, '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error('bench: installing bench/peers failed');
}
