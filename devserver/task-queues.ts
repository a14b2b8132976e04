import { invalid } from './errors.js';

/**
 * Matching: per task queue, a FIFO of task references and a FIFO of waiting long polls.
 * A reference may have gone stale (task already started, run closed); `take` says so by
 * returning null, and the reference is dropped while the poller keeps waiting.
 */
interface Poller<R, T> {
  take: (ref: R) => T | null;
  resolve: (task: T | null) => void;
  reject: (err: unknown) => void;
  done: boolean;
}

export class TaskQueue<R, T> {
  private refs: R[] = [];
  private pollers: Poller<R, T>[] = [];

  offer(ref: R): void {
    while (this.pollers.length > 0) {
      const p = this.pollers[0]!;
      if (p.done) {
        this.pollers.shift();
        continue;
      }
      // Claim the poller before `take`: taking a task can change a run, and that change can offer
      // another task to this same queue re-entrantly; it must not find this poller still free.
      this.pollers.shift();
      p.done = true;
      let task: T | null;
      try {
        task = p.take(ref);
      } catch (err) {
        p.reject(err);
        continue;
      }
      if (task !== null) {
        p.resolve(task);
      } else {
        // A stale reference: drop it, and the poller keeps its place at the front.
        p.done = false;
        this.pollers.unshift(p);
      }
      return;
    }
    this.refs.push(ref);
  }

  /** Resolves with a task, or null when the poll expires or is cancelled. */
  poll(take: (ref: R) => T | null, holdMs: number, onCancel: (cb: () => void) => void): Promise<T | null> {
    while (this.refs.length > 0) {
      const task = take(this.refs.shift()!);
      if (task !== null) return Promise.resolve(task);
    }
    return new Promise<T | null>((resolve, reject) => {
      const finish = () => {
        if (p.done) return;
        p.done = true;
        clearTimeout(timer);
        this.pollers = this.pollers.filter((x) => x !== p);
        resolve(null);
      };
      const timer = setTimeout(finish, holdMs);
      const p: Poller<R, T> = {
        take,
        resolve: (t) => {
          clearTimeout(timer);
          resolve(t);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
        done: false,
      };
      this.pollers.push(p);
      onCancel(finish);
    });
  }

  /** Answers every waiting poll with no task (server shutdown, worker shutdown). */
  releasePollers(filter: (p: unknown) => boolean = () => true): void {
    for (const p of this.pollers) {
      if (!p.done && filter(p)) {
        p.done = true;
        p.resolve(null);
      }
    }
    this.pollers = this.pollers.filter((p) => !p.done);
  }

  get backlog(): number {
    return this.refs.length;
  }

  /** Polls waiting for a task right now. */
  get waiting(): number {
    return this.pollers.filter((p) => !p.done).length;
  }
}

/** Idle polls are held this long, well under the SDK's 70 s poll deadline, then answered empty. */
export const POLL_HOLD_MS = 60_000;

/** The shape of PollWorkflowTaskQueue and PollActivityTaskQueue requests that matching needs. */
interface PollRequest {
  namespace?: string | null;
  taskQueue?: { name?: string | null } | null;
  identity?: string | null;
}

export class TaskQueues<R, T> {
  private readonly waitingByIdentity = new Map<string, number>();

  /** Long polls of this worker identity now waiting on any of these queues. */
  waitingFor(identity: string): number {
    return this.waitingByIdentity.get(identity) ?? 0;
  }

  /** A worker's long poll: a task as soon as one is there, or `{}` once the hold runs out. */
  longPoll(
    req: PollRequest,
    take: (ref: R, identity: string) => T | null,
    onCancel: (cb: () => void) => void,
  ): Promise<T | Record<string, never>> {
    const queue = req.taskQueue?.name;
    if (!queue) throw invalid('taskQueue.name is required');
    const identity = req.identity ?? '';
    this.waitingByIdentity.set(identity, this.waitingFor(identity) + 1);
    return this.get(req.namespace || 'default', queue)
      .poll((ref) => take(ref, identity), POLL_HOLD_MS, onCancel)
      .finally(() => {
        const left = this.waitingFor(identity) - 1;
        if (left > 0) this.waitingByIdentity.set(identity, left);
        else this.waitingByIdentity.delete(identity);
      })
      .then((task) => task ?? {});
  }

  private readonly queues = new Map<string, TaskQueue<R, T>>();

  get(namespace: string, name: string): TaskQueue<R, T> {
    const key = `${namespace}\u0000${name}`;
    let q = this.queues.get(key);
    if (!q) {
      q = new TaskQueue();
      this.queues.set(key, q);
    }
    return q;
  }

  releaseAll(): void {
    for (const q of this.queues.values()) q.releasePollers();
  }
}
