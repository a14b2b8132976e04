import path from 'node:path';
import { devServerSearchAttributes } from '../../main/temporal.js';
import { requireTemporalBinary } from '../../main/temporal-binaries.js';
import { startTemporalDevServer, type TemporalDevServer } from '../../main/temporal-dev-server.js';

export interface TestTemporal {
  address: string;
  namespace: string;
  stop(): Promise<void>;
}

export interface TestTemporalOptions {
  /** Lowers a server limit to reach it (`limit.blobSize.error`...); never raises one. */
  dynamicConfig?: Record<string, string | number | boolean>;
}

/**
 * The Temporal a test talks to: TEMPORAL_ADDRESS (and TEMPORAL_NAMESPACE) when set, so the suite
 * can run against a cluster of its own; otherwise `temporal server start-dev` of its own, in
 * memory, on free ports, with the server's default limits.
 */
export async function getTestTemporal(options: TestTemporalOptions = {}): Promise<TestTemporal> {
  const external = process.env.TEMPORAL_ADDRESS;
  if (external && !options.dynamicConfig) {
    return {
      address: external,
      namespace: process.env.TEMPORAL_NAMESPACE || 'default',
      stop: async () => {},
    };
  }
  const server = await startTestDevServer(options);
  return { address: server.address, namespace: 'default', stop: () => server.stop() };
}

/** `temporal server start-dev` for a test: headless, on free ports, in memory unless `dbFilename`. */
export function startTestDevServer(
  options: TestTemporalOptions & { dbFilename?: string; port?: number } = {},
): Promise<TemporalDevServer> {
  return startTemporalDevServer({
    executable: requireTemporalBinary('cli'),
    searchAttributes: devServerSearchAttributes,
    // A failing test's server log, when asked for: one file a server.
    ...(process.env.TEMPORAL_TEST_LOG_DIR
      ? { logFile: path.join(process.env.TEMPORAL_TEST_LOG_DIR, `temporal-${process.pid}-${Date.now()}.log`) }
      : {}),
    ...options,
  });
}
