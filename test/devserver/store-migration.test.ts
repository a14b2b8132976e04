import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { SqliteStore } from '../../devserver/store/sqlite.js';

test('a database from an earlier devserver keeps its history when the batch table changes', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'countersign-store-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'temporal.db');
  const old = new Database(file);
  old.exec(`
    CREATE TABLE runs (id INTEGER PRIMARY KEY, state TEXT NOT NULL);
    CREATE TABLE history (
      run INTEGER NOT NULL, first_event_id INTEGER NOT NULL, events BLOB NOT NULL,
      PRIMARY KEY (run, first_event_id)) WITHOUT ROWID;
  `);
  old.prepare('INSERT INTO runs (id, state) VALUES (1, ?)').run('{}');
  const insert = old.prepare('INSERT INTO history (run, first_event_id, events) VALUES (?, ?, ?)');
  insert.run(1, 4, Buffer.from([4, 5]));
  insert.run(1, 1, Buffer.from([1, 2, 3]));
  old.close();

  const store = new SqliteStore(file);
  assert.deepEqual([...store.readHistory(1)], [1, 2, 3, 4, 5]);
  store.appendHistory(1, 6, new Uint8Array([6]));
  assert.deepEqual([...store.readHistory(1)], [1, 2, 3, 4, 5, 6]);
  store.close();

  const reopened = new Database(file, { readonly: true });
  const tables = reopened
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all()
    .map((row) => row.name);
  reopened.close();
  assert.ok(!tables.includes('history'), `the old table is gone: ${tables.join(', ')}`);
});
