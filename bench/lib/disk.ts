import { closeSync, existsSync, openSync, readSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

const SQLITE_MAGIC = 'SQLite format 3\0';
const HEADER_BYTES = 100;

/** The first 100 bytes of a SQLite database, or undefined for any other file. */
function sqliteHeader(file: string): Buffer | undefined {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(HEADER_BYTES);
    const read = readSync(fd, head, 0, HEADER_BYTES, 0);
    return read === HEADER_BYTES && head.toString('latin1', 0, 16) === SQLITE_MAGIC ? head : undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Bytes of live data in a SQLite database: pages in use, free pages left out. File sizes would
 * hide growth in reused free pages and count WAL churn.
 *
 * A database in WAL mode (the header's format versions are 2) is read through SQLite, so its WAL
 * counts: WAL readers do not block the writer. Any other (the Temporal dev server's, a rollback
 * journal and one connection with no busy timeout) is read from its header without taking a lock:
 * a reader's shared lock at the moment the server commits would fail its write with "database is
 * locked". The header is rewritten at every commit; a read torn by one only delays settling.
 */
function sqliteLiveBytes(file: string, header: Buffer): number {
  if (header[18] === 2 && header[19] === 2) {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const pages = db.pragma('page_count', { simple: true }) as number;
      const free = db.pragma('freelist_count', { simple: true }) as number;
      const size = db.pragma('page_size', { simple: true }) as number;
      return (pages - free) * size;
    } finally {
      db.close();
    }
  }
  const rawSize = header.readUInt16BE(16);
  const pageSize = rawSize === 1 ? 65536 : rawSize;
  // The page count in the header is valid when its version-valid-for number matches the change
  // counter (SQLite 3.7.0 and later write both); otherwise the file's size gives it.
  const pages =
    header.readUInt32BE(92) === header.readUInt32BE(24)
      ? header.readUInt32BE(28)
      : Math.floor(statSync(file).size / pageSize);
  return (pages - header.readUInt32BE(36)) * pageSize;
}

/** What a system keeps under a folder: live SQLite data, plus every other file's size. */
export function persistedBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += persistedBytes(full);
    else if (/-(wal|shm|journal)$/.test(entry.name)) continue;
    else {
      const header = sqliteHeader(full);
      total += header ? sqliteLiveBytes(full, header) : statSync(full).size;
    }
  }
  return total;
}
