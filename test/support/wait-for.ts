import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls until `probe` returns a value; fails after a generous bound (no timing is asserted). For
 * what is eventually true by contract: a run's next step, or a list catching up with a write.
 */
export async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
