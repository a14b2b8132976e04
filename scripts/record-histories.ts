/**
 * Re-records test/histories/*.json: runs the workflow test suite with recording on, so each
 * scenario saves its run's history, then replay.test.ts replays them. Run it after a deliberate,
 * versioned change to the workflow: `npx tsx scripts/record-histories.ts`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const histories = new URL('../test/histories/', import.meta.url);
const scenarios = readdirSync(new URL('../test/workflow/', import.meta.url))
  .filter((name) => name.endsWith('.test.ts') && name !== 'replay.test.ts')
  .map((name) => `test/workflow/${name}`);

for (const name of readdirSync(histories)) if (name.endsWith('.json')) rmSync(new URL(name, histories));
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', ...scenarios],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, COUNTERSIGN_RECORD_HISTORIES: '1' },
  },
);
if (result.status !== 0) {
  console.error('a scenario failed; the histories are incomplete');
  process.exit(result.status ?? 1);
}
console.log(
  `recorded ${readdirSync(histories).filter((n) => n.endsWith('.json')).length} histories in test/histories/`,
);
