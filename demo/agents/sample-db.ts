import Database from 'better-sqlite3';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';

export const SAMPLE_SCHEMA = `
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL, signup_date TEXT NOT NULL);
CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category TEXT NOT NULL, price REAL NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id),
  product_id INTEGER NOT NULL REFERENCES products(id), quantity INTEGER NOT NULL, total REAL NOT NULL,
  status TEXT NOT NULL, ordered_at TEXT NOT NULL);
`;

const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Radia', 'Tim'];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Allen',
  'Thompson',
  'Perlman',
  'Berners-Lee',
];
const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'JP', 'BR', 'IN', 'CA'];
const PRODUCTS: [string, string, number][] = [
  ['Mechanical keyboard', 'hardware', 129],
  ['4K monitor', 'hardware', 399],
  ['USB-C dock', 'hardware', 189],
  ['Noise-cancelling headphones', 'audio', 249],
  ['Studio microphone', 'audio', 159],
  ['Cloud backup (1 year)', 'software', 99],
  ['Code editor licence', 'software', 59],
  ['Standing desk', 'furniture', 549],
];
const STATUSES = ['completed', 'completed', 'completed', 'shipped', 'refunded'];

/** A fixed pseudo-random sequence (mulberry32): the sample data is the same on every machine. */
function generator(seed: number) {
  let state = seed >>> 0;
  return (n: number) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
}

/** Writes the sample database once, atomically, so a reader never sees it half-built. */
export function ensureSampleDatabase(file: string): void {
  if (existsSync(file)) return;
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  const db = new Database(tmp);
  db.exec(SAMPLE_SCHEMA);
  const pick = generator(42);
  db.transaction(() => {
    const customer = db.prepare('INSERT INTO customers VALUES (?, ?, ?, ?)');
    for (let id = 1; id <= 40; id++) {
      const day = 1 + pick(28);
      customer.run(
        id,
        `${FIRST[pick(10)]} ${LAST[pick(10)]}`,
        COUNTRIES[pick(8)],
        `2025-${String(1 + pick(12)).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
      );
    }
    const product = db.prepare('INSERT INTO products VALUES (?, ?, ?, ?)');
    PRODUCTS.forEach(([name, category, price], i) => product.run(i + 1, name, category, price));
    const order = db.prepare('INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?)');
    for (let id = 1; id <= 300; id++) {
      const productId = 1 + pick(PRODUCTS.length);
      const quantity = 1 + pick(3);
      const month = 1 + pick(10);
      order.run(
        id,
        1 + pick(40),
        productId,
        quantity,
        PRODUCTS[productId - 1]![2] * quantity,
        STATUSES[pick(STATUSES.length)],
        `2026-${String(month).padStart(2, '0')}-${String(1 + pick(28)).padStart(2, '0')}`,
      );
    }
  })();
  db.close();
  renameSync(tmp, file);
}

export const MAX_ROWS = 100;

export type QueryResult = {
  columns: string[];
  rows: Record<string, string | number | null>[];
  rowCount: number;
  truncated: boolean;
};

/**
 * Runs one statement on a read-only connection. Three locks: the file is opened read-only,
 * `query_only` is on, and statements that are not pure reads are refused before they run.
 */
export function runReadOnlyQuery(file: string, sql: string): QueryResult {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('query_only = ON');
    const statement = db.prepare(sql);
    if (!statement.reader || !statement.readonly)
      throw new Error('only read-only SELECT queries are allowed');
    const rows: Record<string, string | number | null>[] = [];
    let rowCount = 0;
    for (const row of statement.iterate() as Iterable<Record<string, unknown>>) {
      rowCount++;
      if (rows.length < MAX_ROWS) rows.push(toJsonRow(row));
    }
    return {
      columns: statement.columns().map((c) => c.name),
      rows,
      rowCount,
      truncated: rowCount > MAX_ROWS,
    };
  } finally {
    db.close();
  }
}

function toJsonRow(row: Record<string, unknown>): Record<string, string | number | null> {
  const out: Record<string, string | number | null> = {};
  for (const [key, value] of Object.entries(row)) {
    out[key] =
      typeof value === 'number' || typeof value === 'string' || value === null ? value : String(value);
  }
  return out;
}
