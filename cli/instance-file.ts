import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * `<dataDir>/instance.json`: where the Countersign started on this machine over that data dir
 * answers, so `npx countersign` finds it whatever PORT it was given. `npm start` writes it once the
 * API listens and removes it on a clean stop; a file whose process is gone (a crash, a kill -9) is
 * ignored. Node's standard library only: the CLI reads it without loading any server code.
 *
 * @example
 * ```ts
 * import { readInstanceFile, type InstanceFile } from 'countersign/dev';
 *
 * const instance: InstanceFile | undefined = readInstanceFile('.countersign');
 * if (instance) console.log(`Countersign answers at ${instance.url} (pid ${instance.pid})`);
 * ```
 */
export interface InstanceFile {
  /** The API's base URL as a client on this machine reaches it. */
  url: string;
  /** The process serving it. */
  pid: number;
  startedAt: string;
}

export const INSTANCE_FILE = 'instance.json';

/** A wildcard listen address is reached through loopback. */
function reachable(url: string): string {
  const parsed = new URL(url);
  if (parsed.hostname === '0.0.0.0') parsed.hostname = '127.0.0.1';
  else if (parsed.hostname === '[::]') parsed.hostname = '[::1]';
  return parsed.origin;
}

/**
 * Says that this process serves Countersign at `url`, so `npx countersign` on this machine finds it.
 * Call it once the server listens; a wildcard address is written as loopback.
 *
 * @example
 * ```ts
 * import { writeInstanceFile } from 'countersign/dev';
 *
 * app.listen(8080, () => writeInstanceFile('.countersign', 'http://0.0.0.0:8080'));
 * ```
 */
export function writeInstanceFile(dataDir: string, url: string, pid = process.pid): void {
  const file = path.join(dataDir, INSTANCE_FILE);
  const instance: InstanceFile = { url: reachable(url), pid, startedAt: new Date().toISOString() };
  // Written whole, then renamed: a reader never sees half a file.
  const partial = `${file}.${pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(instance, null, 2)}\n`);
  renameSync(partial, file);
}

/**
 * Removes the file if it still names this process (another instance may have started since).
 *
 * @example
 * ```ts
 * import { removeInstanceFile } from 'countersign/dev';
 *
 * process.once('SIGTERM', () => {
 *   removeInstanceFile('.countersign');
 *   server.close();
 * });
 * ```
 */
export function removeInstanceFile(dataDir: string, pid = process.pid): void {
  const found = readFile(dataDir);
  if (found?.pid === pid) rmSync(path.join(dataDir, INSTANCE_FILE), { force: true });
}

function readFile(dataDir: string): InstanceFile | undefined {
  try {
    const value = JSON.parse(readFileSync(path.join(dataDir, INSTANCE_FILE), 'utf8')) as unknown;
    if (typeof value !== 'object' || value === null) return undefined;
    const { url, pid, startedAt } = value as Record<string, unknown>;
    if (typeof url !== 'string' || !Number.isInteger(pid) || (pid as number) <= 0) return undefined;
    return { url, pid: pid as number, startedAt: typeof startedAt === 'string' ? startedAt : '' };
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The running instance the data dir names, if its process is still alive.
 *
 * @example
 * ```ts
 * import { readInstanceFile } from 'countersign/dev';
 *
 * const base = readInstanceFile('.countersign')?.url ?? 'http://127.0.0.1:3000';
 * const runs = await fetch(`${base}/api/runs`, { headers: { authorization: `Bearer ${token}` } });
 * ```
 */
export function readInstanceFile(dataDir: string): InstanceFile | undefined {
  const found = readFile(dataDir);
  return found && alive(found.pid) ? found : undefined;
}
