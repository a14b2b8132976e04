import { spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { DevServerPortTaken } from '../errors/dev-server-port-taken.js';
import { SEARCH_ATTRIBUTES } from '../protocol/index.js';

/** A search attribute type as `temporal server start-dev --search-attribute` spells it. */
export type DevServerAttributeType =
  | 'Text'
  | 'Keyword'
  | 'Int'
  | 'Double'
  | 'Bool'
  | 'Datetime'
  | 'KeywordList';

const DEV_TYPES: Record<string, DevServerAttributeType> = {
  INT: 'Int',
  KEYWORD: 'Keyword',
  KEYWORD_LIST: 'KeywordList',
  DATETIME: 'Datetime',
};

/**
 * Countersign's search attributes as `start-dev --search-attribute` takes them.
 *
 * @example
 * ```ts
 * import {
 *   devServerSearchAttributes,
 *   requireTemporalBinary,
 *   startTemporalDevServer,
 * } from 'countersign/testing';
 *
 * const server = await startTemporalDevServer({
 *   executable: requireTemporalBinary('cli', process.env),
 *   searchAttributes: devServerSearchAttributes,
 * });
 * ```
 */
export const devServerSearchAttributes: Record<string, DevServerAttributeType> = Object.fromEntries(
  Object.values(SEARCH_ATTRIBUTES).map((a) => [a.name, DEV_TYPES[a.type]!]),
);

/**
 * How `startTemporalDevServer` runs `temporal server start-dev`: in memory on free ports, headless,
 * unless told otherwise.
 *
 * @example
 * ```ts
 * import { devServerSearchAttributes, type DevServerOptions } from 'countersign/dev';
 *
 * const options: DevServerOptions = {
 *   executable: '/usr/local/bin/temporal',
 *   dbFilename: '.countersign/temporal.db', // runs survive a restart
 *   port: 7233,
 *   uiPort: 8233,
 *   searchAttributes: devServerSearchAttributes,
 * };
 * ```
 */
export interface DevServerOptions {
  /** The Temporal CLI binary (see `findTemporalBinary`). */
  executable: string;
  /** SQLite file that keeps runs across restarts; in memory when absent. */
  dbFilename?: string;
  /** The frontend's gRPC port; a free one when absent or 0. */
  port?: number;
  /** The Web UI's port (a free one when 0), or false for none. Default: false. */
  uiPort?: number | false;
  /** Default `127.0.0.1`. */
  ip?: string;
  /** Search attributes to register at start (a no-op on an existing database, which has them). */
  searchAttributes?: Record<string, DevServerAttributeType>;
  /** `--dynamic-config-value` settings: how a test lowers a limit to reach it. */
  dynamicConfig?: Record<string, string | number | boolean>;
  /** `--sqlite-pragma` settings for the SQLite file, such as `{ journal_mode: 'wal' }`. */
  sqlitePragmas?: Record<string, string>;
  /** The server's own log; it is kept in memory for error messages either way. */
  logFile?: string;
  /** Default `warn`. */
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** How long to wait for the frontend to answer. Default 60 s. */
  startTimeoutMs?: number;
  /**
   * Run it in a process group of its own, so that a terminal's Ctrl-C reaches only the process that
   * started it, which can then stop its worker first and the server last (`npm start`). It still
   * ends when that process exits, though not when it is killed outright. Default false.
   */
  ownProcessGroup?: boolean;
}

export interface DevServerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * A running Temporal dev server, as `startTemporalDevServer` hands it back.
 *
 * @example
 * ```ts
 * import { NativeConnection } from '@temporalio/worker';
 * import { startTemporalDevServer, type TemporalDevServer } from 'countersign/dev';
 *
 * const server: TemporalDevServer = await startTemporalDevServer({ executable, uiPort: 0 });
 * console.log(`Temporal at ${server.address}, its UI at ${server.uiUrl}`);
 * const connection = await NativeConnection.connect({ address: server.address });
 * // ...
 * await server.stop();
 * ```
 */
export interface TemporalDevServer {
  /** `host:port` of the gRPC frontend. */
  address: string;
  port: number;
  /** The Web UI's URL, when it runs. */
  uiUrl?: string;
  pid: number;
  /** Resolves when the process ends, however it ends. */
  exited: Promise<DevServerExit>;
  /** The last lines the server wrote, for error messages. */
  recentLog(): string;
  /** Sends a signal without waiting (the fault suite's SIGKILL). */
  kill(signal?: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL if it has not ended after `graceMs` (default 10 s). */
  stop(graceMs?: number): Promise<void>;
}

/**
 * A free TCP port on `ip`, as the OS hands one out; the CLI takes no port 0.
 *
 * @example
 * ```ts
 * import { freePort } from 'countersign/dev';
 *
 * const port = await freePort();
 * const server = app.listen(port);
 * ```
 */
export function freePort(ip = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, ip, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Whether something already listens on `ip:port`.
 *
 * @example
 * ```ts
 * import { portTaken } from 'countersign/dev';
 *
 * if (await portTaken(7233)) console.log('a Temporal may already run here: use it with TEMPORAL_ADDRESS');
 * ```
 */
export function portTaken(port: number, ip = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(true));
    server.listen(port, ip, () => server.close(() => resolve(false)));
  });
}

const LOG_LINES = 40;
const HEAD_LINES = 10;

/**
 * Starts `temporal server start-dev` as a child process and resolves once its frontend answers.
 * The child ends with this process (also on an uncaught error); a taken port, or a server that
 * exits while starting, rejects with the server's own words.
 *
 * @example
 * ```ts
 * import {
 *   devServerSearchAttributes,
 *   requireTemporalBinary,
 *   startTemporalDevServer,
 * } from 'countersign/testing';
 *
 * const server = await startTemporalDevServer({
 *   executable: requireTemporalBinary('cli', process.env),
 *   searchAttributes: devServerSearchAttributes,
 *   logFile: 'temporal.log',
 * });
 * // ... connect to server.address ...
 * await server.stop();
 * ```
 */
export async function startTemporalDevServer(options: DevServerOptions): Promise<TemporalDevServer> {
  const ip = options.ip ?? '127.0.0.1';
  // A port picked here may be taken by another process before the server binds it: pick again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(options, ip);
    } catch (error) {
      const picked = !options.port || options.uiPort === 0;
      if (!(error instanceof DevServerPortTaken) || !picked || attempt >= 5) throw error;
    }
  }
}

export { DevServerPortTaken };

async function launch(options: DevServerOptions, ip: string): Promise<TemporalDevServer> {
  const port = options.port || (await freePort(ip));
  const uiPort =
    options.uiPort === false || options.uiPort === undefined ? false : options.uiPort || (await freePort(ip));
  const args = [
    'server',
    'start-dev',
    '--ip',
    ip,
    '--port',
    String(port),
    '--log-level',
    options.logLevel ?? 'warn',
  ];
  if (uiPort === false) args.push('--headless');
  else args.push('--ui-port', String(uiPort));
  if (options.dbFilename) args.push('--db-filename', options.dbFilename);
  for (const [name, type] of Object.entries(options.searchAttributes ?? {})) {
    args.push('--search-attribute', `${name}=${type}`);
  }
  for (const [key, value] of Object.entries(options.dynamicConfig ?? {})) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  for (const [pragma, value] of Object.entries(options.sqlitePragmas ?? {})) {
    args.push('--sqlite-pragma', `${pragma}=${value}`);
  }

  const child = spawn(options.executable, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.ownProcessGroup ?? false,
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  const exited = new Promise<DevServerExit>((resolve) => {
    child.once('exit', (code, signal) => {
      process.off('exit', killOnExit);
      resolve({ code, signal });
    });
  });
  const spawnFailed = new Promise<never>((_, reject) =>
    child.once('error', (error) => reject(new Error(`cannot run ${options.executable}: ${error.message}`))),
  );
  spawnFailed.catch(() => undefined);

  const lines: string[] = [];
  /** The first lines too: a Go panic says why first, then a stack longer than the tail kept. */
  const head: string[] = [];
  let file: WriteStream | undefined;
  if (options.logFile) file = createWriteStream(options.logFile, { flags: 'a' });
  const keep = (chunk: Buffer) => {
    file?.write(chunk);
    const fresh = chunk.toString().split('\n').filter(Boolean);
    head.push(...fresh.slice(0, Math.max(0, HEAD_LINES - head.length)));
    lines.push(...fresh);
    lines.splice(0, Math.max(0, lines.length - LOG_LINES));
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  void exited.then(() => file?.end());

  const address = `${ip.includes(':') ? `[${ip}]` : ip}:${port}`;
  const server: TemporalDevServer = {
    address,
    port,
    uiUrl: uiPort === false ? undefined : `http://${ip.includes(':') ? `[${ip}]` : ip}:${uiPort}`,
    pid: child.pid ?? -1,
    exited,
    recentLog: () => lines.join('\n'),
    kill: (signal = 'SIGTERM') => void child.kill(signal),
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };

  const ended = exited.then(({ code, signal }) => {
    const tail = server.recentLog();
    const first = head.filter((line) => !lines.includes(line));
    const log = first.length > 0 ? `${first.join('\n')}\n…\n${tail}` : tail;
    if (/address already in use/.test(log))
      throw new DevServerPortTaken(`Temporal dev server: ${log.trim()}`);
    throw new Error(
      `the Temporal dev server exited while starting (${signal ?? `code ${code}`})${log ? `:\n${log}` : ''}`,
    );
  });
  const starting = new AbortController();
  try {
    await Promise.race([
      waitUntilServing(address, options.startTimeoutMs ?? 60_000, starting.signal),
      ended,
      spawnFailed,
    ]);
  } catch (error) {
    await server.stop(2_000);
    throw error;
  } finally {
    starting.abort();
  }
  ended.catch(() => undefined);
  return server;
}

/**
 * Until the frontend answers for the default namespace, which the dev server creates at start. Each
 * try has its own connection and deadline, so something else holding the port cannot stall it.
 */
async function waitUntilServing(address: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!signal.aborted) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.withDeadline(Date.now() + 2_000, () =>
          connection.workflowService.describeNamespace({ namespace: 'default' }),
        );
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      if (Date.now() > deadline) {
        throw new Error(
          `the Temporal dev server at ${address} did not answer within ${timeoutMs} ms: ${(error as Error).message}`,
        );
      }
      await sleep(100);
    }
  }
}
