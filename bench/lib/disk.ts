import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Bytes of every file under a folder (SQLite's -wal and -shm included, as they hold data too). */
export function bytesUnder(dir: string): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? bytesUnder(full) : statSync(full).size;
  }
  return total;
}
