import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** What a child sends its parent over IPC. */
export type ChildMessage =
  | { type: 'ready'; info: Record<string, unknown> }
  | { type: 'reply'; id: number; value: unknown }
  | { type: 'error'; id: number; message: string };

export function reportReady(info: Record<string, unknown>): void {
  process.send?.({ type: 'ready', info } satisfies ChildMessage);
}

export interface ChildSpec {
  label: string;
  /** A TypeScript file, relative to the repository root or absolute. */
  file: string;
  args?: string[];
  env?: Record<string, string>;
  /** Options for node itself, before the loader (`--expose-gc`). */
  nodeArgs?: string[];
  /** How to tell it is up: it calls `reportReady`. */
  ready: 'ipc';
  timeoutMs?: number;
}

export interface Child {
  spec: ChildSpec;
  pid: number;
  process: ChildProcess;
  info: Record<string, unknown>;
  exited: boolean;
  /** Ask the child to do something and wait for its answer (see `answerRequests`). */
  request<T>(message: Record<string, unknown>): Promise<T>;
  /** SIGKILL, and wait until it is gone. */
  kill(): Promise<void>;
}

// Children never outlive their parent, however it ends (a failed assertion, an exception).
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const proc of live) proc.kill('SIGKILL');
});

/**
 * Starts a TypeScript file in a node process of its own (tsx as a loader, so the pid is the very
 * process doing the work) and waits until it is ready.
 */
export function startChild(spec: ChildSpec): Promise<Child> {
  const proc = spawn(
    process.execPath,
    [...(spec.nodeArgs ?? []), '--import', 'tsx', spec.file, ...(spec.args ?? [])],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, ...spec.env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  live.add(proc);
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let nextId = 1;
  const child: Child = {
    spec,
    pid: proc.pid!,
    process: proc,
    info: {},
    exited: false,
    request<T>(body: Record<string, unknown>) {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        proc.send({ ...body, id });
      });
    },
    async kill() {
      if (child.exited) return;
      const gone = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill('SIGKILL');
      await gone;
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`${spec.label} was not ready within ${spec.timeoutMs ?? 60_000} ms`));
      proc.kill('SIGKILL');
    }, spec.timeoutMs ?? 60_000);
    proc.once('error', reject);
    proc.once('exit', (code, signal) => {
      child.exited = true;
      live.delete(proc);
      clearTimeout(timer);
      const err = new Error(`${spec.label} exited (${signal ?? code})`);
      reject(err);
      for (const p of pending.values()) p.reject(err);
      pending.clear();
    });
    proc.on('message', (raw) => {
      const message = raw as ChildMessage;
      if (message.type === 'ready') {
        child.info = message.info;
        clearTimeout(timer);
        resolve(child);
        return;
      }
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if (message.type === 'reply') waiter?.resolve(message.value);
      else waiter?.reject(new Error(`${spec.label}: ${message.message}`));
    });
  });
}

/** Child side of `request`: each message is handed to `handle`, and its result sent back. */
export function answerRequests(handle: (message: Record<string, unknown>) => Promise<unknown>): void {
  process.on('message', (raw) => {
    const message = raw as Record<string, unknown> & { id: number };
    handle(message).then(
      (value) => process.send?.({ type: 'reply', id: message.id, value } satisfies ChildMessage),
      (err: unknown) =>
        process.send?.({
          type: 'error',
          id: message.id,
          message: err instanceof Error ? (err.stack ?? err.message) : String(err),
        } satisfies ChildMessage),
    );
  });
  // The IPC channel ties the child to its parent: when the parent goes, so does the child.
  process.on('disconnect', () => process.exit(0));
}

/**
 * Child side of a `{ type: 'gc' }` request, in a child started with `--expose-gc`: a full garbage
 * collection, so that what it allocated before is not collected while its parent weighs what comes
 * next (V8 collects a large heap whenever it next allocates, seconds or minutes later).
 */
export function answerGarbageRequests(): void {
  answerRequests(async (message) => {
    const gc = (globalThis as { gc?: () => void }).gc;
    if (message.type !== 'gc' || !gc) throw new Error(`cannot answer ${JSON.stringify(message)}`);
    gc();
    return true;
  });
}
