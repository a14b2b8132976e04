/**
 * One Node timer per run, armed for that run's earliest deadline (user timer, activity or
 * workflow-task timeout, retry backoff, workflow timeout). Deadlines are derived from the
 * persisted run state, so re-arming after a restart needs no timer table, and deadlines
 * that passed while the server was down fire at once.
 */
const MAX_DELAY = 2 ** 31 - 1;

export class Deadlines<K> {
  private readonly armed = new Map<K, { at: number; handle: NodeJS.Timeout }>();

  constructor(private readonly fire: (key: K) => void) {}

  set(key: K, at: number | undefined): void {
    const cur = this.armed.get(key);
    if (cur && cur.at === at) return;
    if (cur) clearTimeout(cur.handle);
    if (at === undefined) {
      this.armed.delete(key);
      return;
    }
    const delay = Math.min(Math.max(0, at - Date.now()), MAX_DELAY);
    const handle = setTimeout(() => {
      this.armed.delete(key);
      this.fire(key);
    }, delay);
    handle.unref();
    this.armed.set(key, { at, handle });
  }

  clearAll(): void {
    for (const { handle } of this.armed.values()) clearTimeout(handle);
    this.armed.clear();
  }
}
