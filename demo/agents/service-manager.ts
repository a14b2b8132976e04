import type Database from 'better-sqlite3';
import { HOSTNAME } from './simulated-host.js';
import { openDemoDatabase } from './sqlite.js';

/** Services the simulated host's service manager runs (its system units go through systemctl). */
export const MANAGED_SERVICES = ['payments', 'checkout', 'search'] as const;
export type ManagedService = (typeof MANAGED_SERVICES)[number];

/**
 * The one service whose restarts the manager takes but does not confirm the first time it is asked
 * for a call: the restart happens, the answer never comes, as when a connection drops mid-reply.
 */
export const UNCONFIRMED_SERVICE: ManagedService = 'payments';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS restart_requests (
  n INTEGER PRIMARY KEY AUTOINCREMENT,
  service TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  at TEXT NOT NULL
);
`;

export type RestartResult = {
  host: string;
  simulated: true;
  service: ManagedService;
  state: 'active';
  /** Restarts of this service the manager has taken so far: each request is one, repeats included. */
  restarts: number;
};

/**
 * A pretend service manager on the simulated host. Unlike the host's shell it does not dedupe: every
 * request restarts the service again, which is why the ops demo's `restart_service` is not
 * `idempotent` and an attempt nobody knows the end of goes to a person.
 */
export class SimulatedServiceManager {
  private readonly db: Database.Database;

  constructor(file: string) {
    this.db = openDemoDatabase(file, SCHEMA);
  }

  /** Restarts the service; `confirmed` is false when the manager took the request but never answered. */
  restart(key: string, service: ManagedService): { confirmed: boolean; result: RestartResult } {
    return this.db
      .transaction(() => {
        const asked = this.count('SELECT COUNT(*) AS n FROM restart_requests WHERE idempotency_key = ?', key);
        this.db
          .prepare('INSERT INTO restart_requests (service, idempotency_key, at) VALUES (?, ?, ?)')
          .run(service, key, new Date().toISOString());
        const result: RestartResult = {
          host: `${HOSTNAME} (simulated)`,
          simulated: true,
          service,
          state: 'active',
          restarts: this.count('SELECT COUNT(*) AS n FROM restart_requests WHERE service = ?', service),
        };
        return { confirmed: !(service === UNCONFIRMED_SERVICE && asked === 0), result };
      })
      .immediate();
  }

  private count(sql: string, value: string): number {
    return (this.db.prepare(sql).get(value) as { n: number }).n;
  }
}
