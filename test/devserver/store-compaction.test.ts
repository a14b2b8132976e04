import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { parseRunState, serializeRunState, type RunState } from '../../devserver/state.js';
import { SqliteStore } from '../../devserver/store/sqlite.js';

function tempDb(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'countersign-store-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'temporal.db');
}

const rows = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare<
        [],
        { first_event_id: number; codec: number; size: number }
      >('SELECT first_event_id, codec, length(events) AS size FROM history_batches ORDER BY first_event_id')
      .all();
  } finally {
    db.close();
  }
};

test('compacting a history keeps its bytes, shrinks it, and later batches append after it', (t) => {
  const file = tempDb(t);
  const store = new SqliteStore(file);
  const runId = store.createRun('{}');
  // Batches that repeat one another, as a run's events repeat the agent's spec.
  const batch = (n: number) =>
    Buffer.from(`batch ${n}: ${'{"name":"transfer","amount":{"type":"number"}}'.repeat(20)}`);
  store.appendHistory(runId, 1, batch(1));
  store.appendHistory(runId, 4, batch(2));
  const before = store.readHistory(runId);

  store.compactHistory(runId);
  assert.deepEqual(store.readHistory(runId), before);
  const compacted = rows(file);
  assert.equal(compacted.length, 1);
  assert.equal(compacted[0]!.codec, 1);
  assert.ok(compacted[0]!.size < before.length / 4, `${compacted[0]!.size} bytes for ${before.length}`);

  store.appendHistory(runId, 9, batch(3));
  assert.deepEqual(store.readHistory(runId), Buffer.concat([before, batch(3)]));
  store.compactHistory(runId);
  store.close();

  const reopened = new SqliteStore(file);
  assert.deepEqual(reopened.readHistory(runId), Buffer.concat([before, batch(3)]));
  assert.equal(rows(file).length, 1);
  reopened.close();
});

test('run state is saved compressed, binary fields as latin1; plain JSON from older databases still loads', (t) => {
  const file = tempDb(t);
  const old = new Database(file);
  old.exec('CREATE TABLE runs (id INTEGER PRIMARY KEY, state TEXT NOT NULL)');
  const memo = Buffer.from([0x0a, 0x05, 0x00, 0xff, 0x7b, 0x7d]).toString('base64');
  const legacy = { runId: 'r1', memo, buffered: [{ event: memo }] };
  old.prepare('INSERT INTO runs (id, state) VALUES (1, ?)').run(JSON.stringify(legacy));
  old.close();

  const store = new SqliteStore(file);
  const [loaded] = store.loadRuns();
  assert.deepEqual(parseRunState(loaded!.state), legacy);

  const state = { ...legacy, searchAttributes: memo } as unknown as RunState;
  const saved = serializeRunState(state);
  assert.ok(!saved.includes(memo), 'binary fields are not kept as base64');
  assert.deepEqual(parseRunState(saved), state);
  store.saveRun(1, saved);
  store.close();

  const raw = new Database(file, { readonly: true });
  const stored = raw.prepare<[], { state: unknown }>('SELECT state FROM runs').get()!.state;
  raw.close();
  assert.ok(Buffer.isBuffer(stored), 'the state row is a compressed blob');
  const reopened = new SqliteStore(file);
  assert.deepEqual(parseRunState(reopened.loadRuns()[0]!.state), state);
  reopened.close();
});
