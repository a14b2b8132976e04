import type { SecretSpec } from '../protocol/index.js';

/** A secret the run holds: sealed (the workflow holds no key), with the approval it answered. */
export interface HeldSecret {
  name: string;
  sealed: string;
  /** The approval it was supplied to: the seal is bound to it. */
  trackingId: string;
  keep: SecretSpec['keep'];
  /** Who supplied it. */
  by: string[];
}

/**
 * The secrets a run holds between a person supplying them and the calls that use them. Only sealed
 * values, in memory: none is in a view, a query answer or an event, and all are gone when the run ends.
 */
export class SecretVault {
  private readonly held = new Map<string, HeldSecret>();

  get(name: string): HeldSecret | undefined {
    return this.held.get(name);
  }

  put(secret: HeldSecret): void {
    this.held.set(secret.name, secret);
  }

  /** After a call: a secret supplied for one use is dropped, one kept for the run stays. */
  used(secrets: HeldSecret[]): void {
    for (const secret of secrets) if (secret.keep === 'once') this.held.delete(secret.name);
  }

  /** What the next run of the chain takes over when the run continues as new. */
  carry(): HeldSecret[] {
    return [...this.held.values()];
  }

  restore(secrets: HeldSecret[]): void {
    for (const secret of secrets) this.held.set(secret.name, secret);
  }
}
