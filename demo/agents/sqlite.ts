import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * Opens a demo database in the data dir. WAL and a busy timeout let the worker and a test
 * process share one file.
 */
export function openDemoDatabase(file: string, schema: string): Database.Database {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.exec(schema);
  return db;
}

/** Opens a database on first use, so defining the agents touches no file. */
export function lazy<T>(open: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= open());
}
