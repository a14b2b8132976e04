import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface TestTemporal {
  address: string;
  namespace: string;
  stop(): Promise<void>;
}

/**
 * The Temporal a test talks to: TEMPORAL_ADDRESS (and TEMPORAL_NAMESPACE) when set, so the
 * suite can run against a real server; otherwise a devserver process of its own, in memory, on a
 * free port, as a real server would be: the worker and clients reach it only over gRPC.
 */
export async function getTestTemporal(): Promise<TestTemporal> {
  const external = process.env.TEMPORAL_ADDRESS;
  if (external) {
    return {
      address: external,
      namespace: process.env.TEMPORAL_NAMESPACE || 'default',
      stop: async () => {},
    };
  }
  const server = await spawnDevServerProcess({ dbPath: ':memory:' });
  return {
    address: server.address,
    namespace: 'default',
    async stop() {
      server.kill('SIGTERM');
      await server.exited;
    },
  };
}

export interface DevServerProcess {
  address: string;
  port: number;
  pid: number;
  kill(signal?: NodeJS.Signals): void;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string>;
}

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Runs the devserver CLI as a child process. It is tied to this one by an IPC channel, so it exits
 * when this process does, however that ends.
 */
export function spawnDevServerProcess(opts: { dbPath: string; port?: number }): Promise<DevServerProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'devserver/cli.ts', '--port', String(opts.port ?? 0), '--db', opts.dbPath],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
  );
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(signal ?? code ?? 0)),
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /devserver listening on (\S+):(\d+)/.exec(out);
      if (!m) return;
      child.stdout!.off('data', onData);
      // Keep draining so the child never blocks on a full pipe.
      child.stdout!.resume();
      resolve({
        address: `${m[1]}:${m[2]}`,
        port: Number(m[2]),
        pid: child.pid!,
        kill: (signal = 'SIGTERM') => child.kill(signal),
        exited,
      });
    };
    child.stdout!.on('data', onData);
    exited.then((code) => reject(new Error(`devserver exited (${code}) before listening: ${stderr}`)));
  });
}
