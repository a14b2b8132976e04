import path from 'node:path';
import {
  createTestTemporal,
  type CreateTestTemporalOptions,
  type TestTemporal as Library,
} from '../../testing/index.js';
import { laggingVisibilityConfig } from './visibility-lag.js';
import { installTestRuntime } from './worker.js';

/** The library's test environment; `stop` is its `teardown`. */
export type TestTemporal = Library & { stop(): Promise<void> };

export interface TestTemporalOptions {
  /** Lowers a server limit to reach it (`limit.blobSize.error`...); never raises one. */
  dynamicConfig?: CreateTestTemporalOptions['dynamicConfig'];
  /** Temporal's time-skipping test server, for deadlines of real length. */
  timeSkipping?: boolean;
}

/**
 * The Temporal a test talks to, through the library's `createTestTemporal`: TEMPORAL_ADDRESS (and
 * TEMPORAL_NAMESPACE) when set, so the suite can run against a cluster of its own; otherwise
 * `temporal server start-dev` of its own, in memory, on free ports, with the server's default
 * limits (or the time-skipping test server). The binaries are found as `npm start` finds them
 * (TEMPORAL_CLI_PATH, .venv, PATH), and TEMPORAL_TEST_LOG_DIR keeps each dev server's log. With
 * COUNTERSIGN_TEST_VISIBILITY_LAG_MS set, the dev server's list queries lag behind its writes.
 * `stop` is `teardown`.
 */
export async function getTestTemporal(options: TestTemporalOptions = {}): Promise<TestTemporal> {
  // Before the environment: it takes the process's Runtime, installing a default one if none is.
  installTestRuntime();
  const external = process.env.TEMPORAL_ADDRESS;
  const logDir = process.env.TEMPORAL_TEST_LOG_DIR;
  const temporal = await createTestTemporal(
    external && !options.dynamicConfig && !options.timeSkipping
      ? { address: external, namespace: process.env.TEMPORAL_NAMESPACE || 'default' }
      : {
          ...options,
          ...(options.timeSkipping
            ? {}
            : { dynamicConfig: { ...laggingVisibilityConfig(), ...options.dynamicConfig } }),
          env: process.env,
          // A failing test's server log, when asked for: one file a server.
          ...(logDir && !options.timeSkipping
            ? { logFile: path.join(logDir, `temporal-${process.pid}-${Date.now()}.log`) }
            : {}),
        },
  );
  return Object.assign(temporal, { stop: () => temporal.teardown() });
}
