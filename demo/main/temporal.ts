import path from 'node:path';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { connectionOptions, type TemporalConfig } from 'countersign';
import {
  devServerSearchAttributes,
  ONE_MACHINE_SERVER,
  portTaken,
  requireTemporalBinary,
  startTemporalDevServer,
  type TemporalDevServer,
} from 'countersign/dev';

export interface TemporalConnections {
  address: string;
  /** Set when Countersign started `temporal server start-dev` itself. */
  devServer?: TemporalDevServer;
  dbPath?: string;
  logPath?: string;
  /** Said in the banner: a default port that was taken, and the one used instead. */
  notes: string[];
  client: Connection;
  worker: NativeConnection;
  close(): Promise<void>;
}

/** Temporal's own defaults: the frontend on 7233, its Web UI 1,000 above. */
const DEV_PORT = 7233;
const DEV_UI_PORT = 8233;

/** A default port, or a free one (and a note saying so) when something else holds it. */
export async function pickPort(preferred: number, what: string, notes: string[]): Promise<number> {
  if (!(await portTaken(preferred))) return preferred;
  notes.push(`${what} port ${preferred} is in use by another process; using a free port instead`);
  return 0;
}

/** Where `npm start` runs its dev server: its ports, and whether Ctrl-C in its terminal reaches it. */
export interface DevServerSettings {
  port?: number;
  uiPort?: number;
  /** In a process group of its own: stopped by `npm start` after the worker, not by the terminal. */
  ownProcessGroup?: boolean;
}

async function startDevServer(
  dataDir: string,
  ports: DevServerSettings,
  env: NodeJS.ProcessEnv,
  notes: string[],
): Promise<TemporalDevServer & { dbPath: string; logPath: string }> {
  const executable = requireTemporalBinary('cli', env);
  const dbPath = path.join(dataDir, 'temporal.db');
  const logPath = path.join(dataDir, 'temporal.log');
  const port = ports.port ?? (await pickPort(DEV_PORT, "Temporal's", notes));
  const uiPort = ports.uiPort ?? (await pickPort(DEV_UI_PORT, 'The Temporal Web UI', notes));
  const level = env.COUNTERSIGN_TEMPORAL_LOG_LEVEL;
  if (level && !['debug', 'info', 'warn', 'error'].includes(level)) {
    throw new Error(`COUNTERSIGN_TEMPORAL_LOG_LEVEL must be debug, info, warn or error, not ${level}`);
  }
  try {
    const server = await startTemporalDevServer({
      executable,
      dbFilename: dbPath,
      port,
      uiPort,
      searchAttributes: devServerSearchAttributes,
      // Settings for one machine: the task queue read as often as work comes, SQLite's log synced once a commit.
      ...ONE_MACHINE_SERVER,
      logFile: logPath,
      logLevel: (level as 'warn' | undefined) ?? 'warn',
      ownProcessGroup: ports.ownProcessGroup,
    });
    return Object.assign(server, { dbPath, logPath });
  } catch (error) {
    const message = (error as Error).message;
    // Countersign's own imitation server (retired) kept a database of another shape at this path.
    const foreign = /no such table/.test(message)
      ? `\n${dbPath} is not a Temporal database (an older Countersign kept its own server's state there): move it away to start afresh.`
      : '';
    throw new Error(`${message}${foreign}\n(the server's log: ${logPath}; its state: ${dbPath})`);
  }
}

/**
 * Connects to TEMPORAL_ADDRESS, or else starts `temporal server start-dev` with its SQLite file
 * in the data dir, so runs and their pending approvals survive a restart.
 */
export async function connectTemporal(
  config: TemporalConfig,
  dataDir: string,
  devServerPorts: DevServerSettings = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<TemporalConnections> {
  const notes: string[] = [];
  const devServer = config.address ? undefined : await startDevServer(dataDir, devServerPorts, env, notes);
  const address = config.address ?? devServer!.address;
  const options = connectionOptions({ ...config, address });
  try {
    const client = await Connection.connect(options);
    const worker = await NativeConnection.connect(options);
    return {
      address,
      devServer,
      dbPath: devServer?.dbPath,
      logPath: devServer?.logPath,
      notes,
      client,
      worker,
      async close() {
        await worker.close();
        await client.close();
        await devServer?.stop();
      },
    };
  } catch (error) {
    await devServer?.stop();
    throw new Error(`cannot connect to Temporal at ${address}: ${(error as Error).message}`);
  }
}
