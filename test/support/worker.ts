import type { KeySet } from '../../codec/keyring.js';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { PayloadCodec } from '@temporalio/common';
import {
  bundleWorkflowCode,
  DefaultLogger,
  makeTelemetryFilterString,
  NativeConnection,
  Runtime,
  type Worker,
} from '@temporalio/worker';
import type { AgentDefinition } from '../../define/index.js';
import {
  bundleWorkflows,
  createWorker,
  WORKFLOWS_PATH,
  type ModelSettings,
  type Notifier,
} from '../../worker/index.js';
import type { ContentStore } from '../../content-store/content-store.js';

let runtimeInstalled = false;

/**
 * One native Runtime per process (each test file is its own process), logging warnings and errors
 * only; `ERROR` quiets the expected warnings of tests that provoke failures on purpose.
 */
export function installTestRuntime(level: 'WARN' | 'ERROR' = 'WARN'): void {
  if (runtimeInstalled) return;
  Runtime.install({
    logger: new DefaultLogger(level),
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: level }) } },
  });
  runtimeInstalled = true;
}

let bundle: Promise<{ code: string }> | undefined;

/**
 * Countersign's workflows as an older release steps them: stamping no change time
 * (workflow/unstamped-runs.ts). For `startTestWorker`'s `workflowBundle`.
 */
export function bundleUnstampedWorkflows(): Promise<{ code: string }> {
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: [fileURLToPath(new URL('./workflow/unstamped-runs.ts', import.meta.url))],
    logger: new DefaultLogger('ERROR'),
  });
}

export interface TestWorker {
  worker: Worker;
  taskQueue: string;
  stop(): Promise<void>;
}

/** Starts the real Countersign worker in this process, on its own task queue unless one is given. */
export async function startTestWorker(options: {
  address: string;
  namespace?: string;
  taskQueue?: string;
  agents: AgentDefinition[];
  model: ModelSettings;
  notifier?: Notifier;
  maxToolOutputBytes?: number;
  contentStore?: ContentStore;
  payloadCodec?: PayloadCodec;
  secretKeys?: KeySet;
  /** Workflows bundled otherwise (with test interceptors); Countersign's own by default. */
  workflowBundle?: { code: string };
}): Promise<TestWorker> {
  installTestRuntime();
  bundle ??= bundleWorkflows();
  const connection = await NativeConnection.connect({ address: options.address });
  const taskQueue = options.taskQueue ?? `test-${randomUUID()}`;
  const worker = await createWorker({
    connection,
    namespace: options.namespace,
    taskQueue,
    agents: options.agents,
    model: { maxRetries: 3, ...options.model },
    notifier: options.notifier,
    maxToolOutputBytes: options.maxToolOutputBytes,
    contentStore: options.contentStore,
    payloadCodec: options.payloadCodec,
    secretKeys: options.secretKeys,
    workflowBundle: options.workflowBundle ?? (await bundle),
    workerOptions: { shutdownGraceTime: '1 second' },
  });
  const running = worker.run();
  return {
    worker,
    taskQueue,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
