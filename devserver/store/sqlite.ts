import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import Database from 'better-sqlite3';

/**
 * Durable storage. One row per run holds its mutable state as compressed JSON; history is stored as
 * append-only batches, each an encoded `temporal.api.history.v1.History` message, so that
 * concatenating a run's batches in order is itself a valid encoded History (protobuf merges
 * repeated fields on concatenation) and reading a history is one query plus one decode.
 * A run at rest has its history compacted into one compressed row: one compression over the whole
 * history finds what its events repeat (the agent's spec, the transcript), which batches
 * compressed one by one would not. Compacted rows live in a table of their own, appended in the
 * order runs come to rest, so they fill whole pages; the short-lived batches of active runs come
 * and go in theirs, whose pages empty out and are reused. Kept in one table, every page would end
 * up part compacted rows, part holes where batches were.
 *
 * Durability: WAL with synchronous=NORMAL. Changes are grouped: the engine writes what one
 * turn of the event loop changed in one transaction (group commit), and no RPC is answered
 * before the transaction holding its changes (and every earlier one) has committed. A committed WAL
 * frame is in the OS page cache when the commit returns, so a SIGKILL of the devserver
 * loses nothing it acknowledged. Only a power loss or kernel crash could drop the last
 * transactions, which is acceptable for a single-machine development server and keeps
 * commits free of fsync.
 */
export interface StoredRun {
  rowId: number;
  state: string;
}

/** How a batch row's bytes are stored: compressed batches are compactions by earlier devservers. */
const RAW = 0;
const COMPRESSED = 1;

/** Brotli at quality 5: within a few percent of its best on these small rows, at a fraction of the CPU. */
const compress = (data: Buffer | string): Buffer =>
  brotliCompressSync(data, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 5,
      [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(data),
    },
  });

/** A state row written by this store is compressed JSON; older databases hold plain JSON text. */
const packState = (state: string): Buffer => compress(state);
const unpackState = (stored: string | Buffer): string =>
  typeof stored === 'string' ? stored : brotliDecompressSync(stored).toString('utf8');

export interface HistoryBatch {
  firstEventId: number;
  blob: Uint8Array;
}

export class SqliteStore {
  private readonly db: Database.Database;
  private readonly insertRun: Database.Statement<[Buffer], { id: number }>;
  private readonly updateRun: Database.Statement<[Buffer, number]>;
  private readonly insertBatch: Database.Statement<[number, number, Uint8Array, number]>;
  private readonly selectBatches: Database.Statement<[number], { events: Buffer; codec: number }>;
  private readonly deleteBatches: Database.Statement<[number]>;
  private readonly hasBatches: Database.Statement<[number], { found: number }>;
  private readonly selectCompacted: Database.Statement<[number], { events: Buffer }>;
  private readonly deleteCompacted: Database.Statement<[number]>;
  private readonly insertCompacted: Database.Statement<[number, Buffer]>;
  private readonly upsertAttr: Database.Statement<[string, string, number]>;
  private readonly deleteAttr: Database.Statement<[string, string]>;
  private readonly atomic: (fn: () => unknown) => unknown;

  constructor(path: string) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY, state TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS history_batches (
        id INTEGER PRIMARY KEY, run INTEGER NOT NULL, first_event_id INTEGER NOT NULL, events BLOB NOT NULL);
      CREATE UNIQUE INDEX IF NOT EXISTS history_batches_by_run ON history_batches (run, first_event_id);
      CREATE TABLE IF NOT EXISTS compacted_histories (
        id INTEGER PRIMARY KEY, run INTEGER NOT NULL UNIQUE, events BLOB NOT NULL);
      CREATE TABLE IF NOT EXISTS search_attributes (
        namespace TEXT NOT NULL, name TEXT NOT NULL, type INTEGER NOT NULL,
        PRIMARY KEY (namespace, name)) WITHOUT ROWID;
    `);
    this.migrateHistory();
    this.addCodecColumn();
    this.insertRun = this.db.prepare('INSERT INTO runs (state) VALUES (?) RETURNING id');
    this.updateRun = this.db.prepare('UPDATE runs SET state = ? WHERE id = ?');
    this.insertBatch = this.db.prepare(
      'INSERT INTO history_batches (run, first_event_id, events, codec) VALUES (?, ?, ?, ?)',
    );
    this.selectBatches = this.db.prepare(
      'SELECT events, codec FROM history_batches WHERE run = ? ORDER BY first_event_id',
    );
    this.deleteBatches = this.db.prepare('DELETE FROM history_batches WHERE run = ?');
    this.hasBatches = this.db.prepare('SELECT 1 AS found FROM history_batches WHERE run = ? LIMIT 1');
    this.selectCompacted = this.db.prepare('SELECT events FROM compacted_histories WHERE run = ?');
    this.deleteCompacted = this.db.prepare('DELETE FROM compacted_histories WHERE run = ?');
    this.insertCompacted = this.db.prepare('INSERT INTO compacted_histories (run, events) VALUES (?, ?)');
    this.upsertAttr = this.db.prepare(
      'INSERT INTO search_attributes (namespace, name, type) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET type = excluded.type',
    );
    this.deleteAttr = this.db.prepare('DELETE FROM search_attributes WHERE namespace = ? AND name = ?');
    this.atomic = this.db.transaction((fn: () => unknown) => fn());
  }

  /**
   * Databases written by earlier devservers kept batches in a WITHOUT ROWID table, where any row over about
   * a kilobyte spills into a 4 KB overflow page of its own: most of a paused run's disk use. A
   * rowid table packs batches into shared pages; old rows move over once, in one transaction.
   */
  private migrateHistory(): void {
    const old = this.db
      .prepare<
        [],
        { name: string }
      >("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'history'")
      .get();
    if (!old) return;
    this.db.transaction(() => {
      this.db.exec(`
        INSERT INTO history_batches (run, first_event_id, events)
          SELECT run, first_event_id, events FROM history ORDER BY run, first_event_id;
        DROP TABLE history;
      `);
    })();
  }

  /** Databases from before compaction have no codec column: all their batches are raw. */
  private addCodecColumn(): void {
    const columns = this.db.pragma('table_info(history_batches)') as { name: string }[];
    if (!columns.some((column) => column.name === 'codec')) {
      this.db.exec(`ALTER TABLE history_batches ADD COLUMN codec INTEGER NOT NULL DEFAULT ${RAW}`);
    }
  }

  /** Runs fn in one transaction (all of its writes or none), committed before this returns. */
  transaction<T>(fn: () => T): T {
    return this.atomic(fn) as T;
  }

  createRun(state: string): number {
    return this.insertRun.get(packState(state))!.id;
  }

  saveRun(rowId: number, state: string): void {
    this.updateRun.run(packState(state), rowId);
  }

  appendHistory(rowId: number, firstEventId: number, blob: Uint8Array): void {
    this.insertBatch.run(rowId, firstEventId, blob, RAW);
  }

  /** The compacted part (if any) and the batches appended since, in order. */
  readHistory(rowId: number): Buffer {
    const compacted = this.selectCompacted.get(rowId);
    const batches = this.selectBatches
      .all(rowId)
      .map((row) => (row.codec === COMPRESSED ? brotliDecompressSync(row.events) : row.events));
    return Buffer.concat(compacted ? [brotliDecompressSync(compacted.events), ...batches] : batches);
  }

  /**
   * Rewrites the run's history as one compressed row (in one transaction), unless nothing was
   * appended since it last was. The new row goes to the end of its table, the old one is deleted.
   */
  compactHistory(rowId: number): void {
    this.transaction(() => {
      if (!this.hasBatches.get(rowId)) return;
      const whole = this.readHistory(rowId);
      this.deleteBatches.run(rowId);
      this.deleteCompacted.run(rowId);
      this.insertCompacted.run(rowId, compress(whole));
    });
  }

  loadRuns(): StoredRun[] {
    return this.db
      .prepare<[], { id: number; state: string | Buffer }>('SELECT id, state FROM runs ORDER BY id')
      .all()
      .map((r) => ({ rowId: r.id, state: unpackState(r.state) }));
  }

  loadSearchAttributes(): { namespace: string; name: string; type: number }[] {
    return this.db
      .prepare<
        [],
        { namespace: string; name: string; type: number }
      >('SELECT namespace, name, type FROM search_attributes')
      .all();
  }

  saveSearchAttribute(namespace: string, name: string, type: number): void {
    this.upsertAttr.run(namespace, name, type);
  }

  removeSearchAttribute(namespace: string, name: string): void {
    this.deleteAttr.run(namespace, name);
  }

  close(): void {
    this.db.close();
  }
}
