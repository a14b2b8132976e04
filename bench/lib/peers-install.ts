import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../test/faults/support/child.js';

const versionIn = (file: string): string | undefined => {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
};

/**
 * Every dependency the peers' package pins is installed at that version, so a checkout that adds or
 * bumps a peer installs again rather than failing on a missing module.
 */
export function peersInstalled(peers: string): boolean {
  const { dependencies } = JSON.parse(readFileSync(path.join(peers, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  return Object.entries(dependencies).every(
    ([name, version]) => versionIn(path.join(peers, 'node_modules', name, 'package.json')) === version,
  );
}

/** The peers live in a package of their own, installed on first use so the root install stays lean. */
export function ensurePeersInstalled(): void {
  const peers = path.join(REPO_ROOT, 'bench', 'peers');
  if (peersInstalled(peers)) return;
  console.log('bench: installing the peers (npm ci --prefix bench/peers)...');
  const result = spawnSync('npm', ['ci', '--prefix', peers, '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error('bench: installing bench/peers failed');
}
