import path from 'node:path';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { connectionOptions, type TemporalConfig } from '../config/temporal.js';
import { startDevServer, type DevServer } from '../devserver/index.js';

export interface TemporalConnections {
  address: string;
  /** Set when Countersign started its own devserver. */
  devServer?: DevServer;
  dbPath?: string;
  client: Connection;
  worker: NativeConnection;
  close(): Promise<void>;
}

/** The devserver's usual port, as Temporal's own CLI uses; a free one when it is taken. */
const DEVSERVER_PORT = 7233;

async function startEmbedded(dbPath: string, port: number | undefined): Promise<DevServer> {
  if (port !== undefined) return startDevServer({ port, dbPath });
  try {
    return await startDevServer({ port: DEVSERVER_PORT, dbPath });
  } catch {
    return startDevServer({ port: 0, dbPath });
  }
}

/**
 * Connects to TEMPORAL_ADDRESS, or else starts the embedded devserver with its SQLite file in the
 * data dir, so runs and their pending approvals survive a restart.
 */
export async function connectTemporal(
  config: TemporalConfig,
  dataDir: string,
  devServerPort?: number,
): Promise<TemporalConnections> {
  const dbPath = config.address ? undefined : path.join(dataDir, 'temporal.db');
  const devServer = dbPath ? await startEmbedded(dbPath, devServerPort) : undefined;
  const address = config.address ?? devServer!.address;
  const options = connectionOptions({ ...config, address });
  try {
    const client = await Connection.connect(options);
    const worker = await NativeConnection.connect(options);
    return {
      address,
      devServer,
      dbPath,
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
