import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ONE_MACHINE_SERVER } from '../../temporal/one-machine.js';
import { Running } from './running.js';

/** The command line of the Temporal dev server keeping its state in `dbPath`, from /proc. */
function serverArgs(dbPath: string): string[] | undefined {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let args: string[];
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone since the listing
    }
    if (args.includes('start-dev') && args.includes(dbPath)) return args;
  }
  return undefined;
}

test("npm start's Temporal runs with the settings for one machine: its SQLite in a write-ahead log, its task queue read as work comes", async () => {
  const cs = await Running.start();
  try {
    const dbPath = path.join(cs.dataDir, 'temporal.db');
    const args = serverArgs(dbPath);
    assert.ok(args, `a temporal server start-dev on ${dbPath}`);
    for (const [key, value] of Object.entries(ONE_MACHINE_SERVER.dynamicConfig))
      assert.ok(args.includes(`${key}=${value}`), `${key}=${value} in ${args.join(' ')}`);
    for (const [pragma, value] of Object.entries(ONE_MACHINE_SERVER.sqlitePragmas))
      assert.ok(args.includes(`${pragma}=${value}`), `${pragma}=${value} in ${args.join(' ')}`);
    // SQLite took the journal mode: the log file sits beside the database.
    assert.ok(existsSync(`${dbPath}-wal`), 'temporal.db-wal exists');
  } finally {
    await cs.stop();
  }
});
