import type Database from 'better-sqlite3';
import { openDemoDatabase } from './sqlite.js';

/**
 * Accounts every fresh ledger starts with; the walkthrough's transfer uses the first two. The first
 * holds enough for the walkthrough repeated hundreds of times, and for a large-transfer tier or two.
 */
export const SEED_ACCOUNTS = [
  { number: '4242424242424242', owner: 'Ada Lovelace', cents: 100_000_000 },
  { number: '5555555555554444', owner: 'Grace Hopper', cents: 300_000 },
  { number: '4000056655665556', owner: 'Alan Turing', cents: 50_000 },
] as const;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS accounts (number TEXT PRIMARY KEY, owner TEXT NOT NULL, balance_cents INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS transfers (
  idempotency_key TEXT PRIMARY KEY, from_account TEXT NOT NULL, to_account TEXT NOT NULL,
  amount_cents INTEGER NOT NULL, result TEXT NOT NULL, at TEXT NOT NULL);
`;

export type TransferResult = {
  status: 'executed' | 'failed';
  transfer: { id: string; from: string; to: string; amount: number };
  balances?: Record<string, number>;
  error?: string;
};

/** Card-style account numbers: digits only, grouped by four for people. */
export function normalizeAccount(value: string): string {
  return value.replace(/[\s-]/g, '');
}

export function formatAccount(number: string): string {
  return number.replace(/(\d{4})(?=\d)/g, '$1 ');
}

export class Ledger {
  private readonly db: Database.Database;

  constructor(file: string) {
    this.db = openDemoDatabase(file, SCHEMA);
    const insert = this.db.prepare(
      'INSERT OR IGNORE INTO accounts (number, owner, balance_cents) VALUES (?, ?, ?)',
    );
    for (const account of SEED_ACCOUNTS) insert.run(account.number, account.owner, account.cents);
  }

  balance(account: string): number | undefined {
    const row = this.db
      .prepare('SELECT balance_cents FROM accounts WHERE number = ?')
      .get(normalizeAccount(account)) as { balance_cents: number } | undefined;
    return row ? row.balance_cents / 100 : undefined;
  }

  /**
   * Moves money at most once per idempotency key: a retried activity gets the first result back.
   * Business failures (unknown account, insufficient funds) are results, not exceptions, so the
   * activity does not retry them; they are remembered under the key too.
   */
  transfer(key: string, fromInput: string, toInput: string, amount: number): TransferResult {
    const from = normalizeAccount(fromInput);
    const to = normalizeAccount(toInput);
    const cents = Math.round(amount * 100);
    const run = this.db.transaction((): TransferResult => {
      const done = this.db.prepare('SELECT result FROM transfers WHERE idempotency_key = ?').get(key) as
        | { result: string }
        | undefined;
      if (done) return JSON.parse(done.result) as TransferResult;
      const transfer = {
        id: `tx-${key}`,
        from: formatAccount(from),
        to: formatAccount(to),
        amount: cents / 100,
      };
      const result = this.apply(transfer, from, to, cents);
      this.db
        .prepare('INSERT INTO transfers VALUES (?, ?, ?, ?, ?, ?)')
        .run(key, from, to, cents, JSON.stringify(result), new Date().toISOString());
      return result;
    });
    return run.immediate();
  }

  private apply(
    transfer: TransferResult['transfer'],
    from: string,
    to: string,
    cents: number,
  ): TransferResult {
    const fail = (error: string): TransferResult => ({ status: 'failed', transfer, error });
    if (from === to) return fail('the source and destination accounts are the same');
    if (cents <= 0) return fail('the amount must be positive');
    const source = this.balance(from);
    if (source === undefined) return fail(`unknown account ${transfer.from}`);
    if (this.balance(to) === undefined) return fail(`unknown account ${transfer.to}`);
    if (source * 100 < cents) return fail(`insufficient funds in ${transfer.from}`);
    const move = this.db.prepare('UPDATE accounts SET balance_cents = balance_cents + ? WHERE number = ?');
    move.run(-cents, from);
    move.run(cents, to);
    return {
      status: 'executed',
      transfer,
      balances: { [transfer.from]: this.balance(from)!, [transfer.to]: this.balance(to)! },
    };
  }
}
