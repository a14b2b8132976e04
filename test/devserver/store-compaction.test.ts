import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { brotliCompressSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { parseRunState, serializeRunState, type RunState } from '../../devserver/state.js';
import { SqliteStore } from '../../devserver/store/sqlite.js';

function tempDb(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'countersign-store-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'temporal.db');
}

function query<T>(file: string, sql: string): T[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare<[], T>(sql).all();
  } finally {
    db.close();
  }
}

const batchRows = (file: string) =>
  query<{ run: number; codec: number }>(file, 'SELECT run, codec FROM history_batches ORDER BY id');
const compactedRows = (file: string) =>
  query<{ run: number; size: number }>(
    file,
    'SELECT run, length(events) AS size FROM compacted_histories ORDER BY id',
  );

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
  assert.deepEqual(batchRows(file), []);
  const compacted = compactedRows(file);
  assert.equal(compacted.length, 1);
  assert.ok(compacted[0]!.size < before.length / 4, `${compacted[0]!.size} bytes for ${before.length}`);

  store.appendHistory(runId, 9, batch(3));
  assert.deepEqual(store.readHistory(runId), Buffer.concat([before, batch(3)]));
  store.compactHistory(runId);
  store.close();

  const reopened = new SqliteStore(file);
  assert.deepEqual(reopened.readHistory(runId), Buffer.concat([before, batch(3)]));
  assert.deepEqual(batchRows(file), []);
  assert.deepEqual(
    compactedRows(file).map((row) => row.run),
    [runId],
  );
  reopened.close();
});

test('a history an earlier devserver compacted among the batches reads whole, and moves out when compacted again', (t) => {
  const file = tempDb(t);
  new SqliteStore(file).close();
  const old = new Database(file);
  old.prepare('INSERT INTO runs (id, state) VALUES (1, ?)').run('{}');
  const first = Buffer.from('first events '.repeat(30));
  old
    .prepare('INSERT INTO history_batches (run, first_event_id, events, codec) VALUES (1, 1, ?, 1)')
    .run(brotliCompressSync(first));
  old.close();

  const store = new SqliteStore(file);
  assert.deepEqual(store.readHistory(1), first);
  store.appendHistory(1, 7, Buffer.from('later'));
  store.compactHistory(1);
  assert.deepEqual(store.readHistory(1), Buffer.concat([first, Buffer.from('later')]));
  assert.deepEqual(batchRows(file), []);
  assert.deepEqual(
    compactedRows(file).map((row) => row.run),
    [1],
  );
  store.close();
});

/** Deterministic bytes that do not compress, so the layout, not brotli, decides the outcome. */
function noise(seed: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

test('runs that come to rest while others run leave their pages full, not riddled with holes', (t) => {
  const file = tempDb(t);
  const store = new SqliteStore(file);
  // 400 runs, 50 at a time, each appending five batches in turns with the others and then coming to
  // rest, as a busy server interleaves them.
  const active: { id: number; batches: number }[] = [];
  let started = 0;
  let step = 0;
  while (started < 400 || active.length > 0) {
    while (active.length < 50 && started < 400) {
      active.push({ id: store.createRun('{}'), batches: 0 });
      started++;
    }
    const run = active[(step * 7919) % active.length]!;
    step++;
    store.transaction(() => {
      store.appendHistory(run.id, run.batches * 10 + 1, noise(step, 200 + (step % 300)));
      store.saveRun(run.id, noise(step + 1, 100 + run.batches * 60).toString('hex'));
    });
    if (++run.batches === 5) {
      store.compactHistory(run.id);
      active.splice(active.indexOf(run), 1);
    }
  }
  store.close();

  const db = new Database(file, { readonly: true });
  const pages = db.pragma('page_count', { simple: true }) as number;
  const free = db.pragma('freelist_count', { simple: true }) as number;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const { stored } = db
    .prepare<[], { stored: number }>(
      `SELECT (SELECT sum(length(state)) FROM runs)
            + (SELECT coalesce(sum(length(events)), 0) FROM compacted_histories)
            + (SELECT coalesce(sum(length(events)), 0) FROM history_batches) AS stored`,
    )
    .get()!;
  db.close();
  // Interleaved in one table, compacted rows and the holes of deleted batches took 1.9x the bytes
  // stored; apart, about 1.2x.
  const ratio = ((pages - free) * pageSize) / stored;
  assert.ok(ratio < 1.5, `pages in use hold ${ratio.toFixed(2)}x the bytes stored`);
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
