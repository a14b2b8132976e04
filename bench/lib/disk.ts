import { closeSync, existsSync, openSync, readSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

const SQLITE_MAGIC = 'SQLite format 3\0';

function isSqlite(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(16);
    return readSync(fd, head, 0, 16, 0) === 16 && head.toString('latin1') === SQLITE_MAGIC;
  } finally {
    closeSync(fd);
  }
}

/**
 * Bytes of live data in a SQLite database, as a reader sees it (its WAL included): pages in use,
 * free pages left out. File sizes would hide growth in reused free pages and count WAL churn.
 */
function sqliteLiveBytes(file: string): number {
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

/** What a system keeps under a folder: live SQLite data, plus every other file's size. */
export function persistedBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += persistedBytes(full);
    else if (/-(wal|shm|journal)$/.test(entry.name)) continue;
    else total += isSqlite(full) ? sqliteLiveBytes(full) : statSync(full).size;
  }
  return total;
}
