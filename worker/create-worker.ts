import { fileURLToPath } from 'node:url';
import type { DataConverter, PayloadCodec } from '@temporalio/common';
import { bundleWorkflowCode, Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import type { ContentStore } from '../content-store/content-store.js';
import type { KeySet } from '../codec/keyring.js';
import { secretSealer } from '../secrets/sealer.js';
import { createActivities, type ModelSettings, type Notifier } from '../activities/index.js';
import type { AgentDefinition } from '../define/index.js';
import { DEFAULT_TASK_QUEUE } from '../protocol/index.js';

/**
 * The agent workflow's entry, beside this module: the compiled `.js` in the installed package, the
 * `.ts` source in Countersign's own repository. `createWorker` bundles it; you need it only to
 * bundle it yourself.
 *
 * @example
 * ```ts
 * import { writeFile } from 'node:fs/promises';
 * import { bundleWorkflowCode } from '@temporalio/worker';
 * import { WORKFLOWS_PATH } from 'countersign/worker';
 *
 * // At build time; at run time, pass `{ code }` to `createWorker` as `workflowBundle`.
 * const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH });
 * await writeFile('dist/countersign-workflows.js', code);
 * ```
 */
export const WORKFLOWS_PATH = fileURLToPath(
  new URL(`../workflows/index${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
);

/**
 * The module whose failure converter keeps failure messages and stack traces in payloads, so a
 * payload codec encrypts them too: `createWorker` uses it with a codec. A workflow bundle built
 * ahead for such workers takes it as `bundleWorkflows({ encryptFailures: true })`.
 *
 * @example
 * ```ts
 * import { FAILURE_CONVERTER_PATH } from 'countersign/worker';
 *
 * const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, failureConverterPath: FAILURE_CONVERTER_PATH });
 * ```
 */
export const FAILURE_CONVERTER_PATH = fileURLToPath(
  new URL(`../codec/failure-converter${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
);

/**
 * What `createWorker` needs: a connection to your Temporal, the agents whose tools it runs, and the
 * model they call. The rest has defaults.
 *
 * @example
 * ```ts
 * import { NativeConnection } from '@temporalio/worker';
 * import { createWorker, type CreateWorkerOptions } from 'countersign/worker';
 *
 * const options: CreateWorkerOptions = {
 *   connection: await NativeConnection.connect({ address: 'temporal.internal:7233' }),
 *   taskQueue: 'support',
 *   agents: [support],
 *   model: { apiKey: process.env.OPENAI_API_KEY },
 *   workerOptions: { maxConcurrentActivityTaskExecutions: 20 },
 * };
 * const worker = await createWorker(options);
 * ```
 */
export interface CreateWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /** The agents whose tools this worker runs. */
  agents: AgentDefinition[];
  model: ModelSettings;
  notifier?: Notifier;
  /**
   * The largest tool output a run keeps, in bytes of JSON (default 1,500,000, under the 2 MB a
   * Temporal cluster takes in one payload). A larger output fails the call, without another
   * attempt, and the model is told its size. Lower it with the cluster's `limit.blobSize.error`.
   */
  maxToolOutputBytes?: number;
  /**
   * Where tool outputs over `storeToolOutputsOverBytes` (default 16,384) go instead of the run's
   * history: the run keeps a reference, and the model call reads the output back. Every worker of
   * the task queue needs the same store. Outputs a human reviews stay in the run.
   */
  contentStore?: ContentStore;
  storeToolOutputsOverBytes?: number;
  /** A bundle made once with `bundleWorkflows()`, to skip bundling when a process starts several workers. */
  workflowBundle?: { code: string };
  /**
   * Encrypts every payload the worker writes and decrypts those it reads (`aesGcmCodec`): run
   * inputs, activity inputs and results, signals, query answers, memos. It runs after any codec of
   * `workerOptions.dataConverter`, and the client activities use (`Context.current().client`)
   * takes it too. Every worker, client and API of the namespace needs the same keys.
   *
   * @example
   * ```ts
   * import { aesGcmCodec, loadPayloadKeys } from 'countersign';
   * import { createWorker } from 'countersign/worker';
   *
   * const keys = loadPayloadKeys(process.env); // COUNTERSIGN_PAYLOAD_KEYS
   * const worker = await createWorker({ connection, agents, model, payloadCodec: keys && aesGcmCodec(keys) });
   * ```
   */
  payloadCodec?: PayloadCodec;
  /**
   * The keys that open the secrets people supply to tools declaring `secrets`: the same as the API's
   * (`loadSecretKeys(process.env)` reads `COUNTERSIGN_SECRET_KEYS`). Without them such a call fails,
   * saying why. Keep them apart from the payload keys.
   *
   * @example
   * ```ts
   * import { createWorker } from 'countersign/worker';
   * import { loadSecretKeys } from 'countersign';
   *
   * const worker = await createWorker({ connection, agents, model, secretKeys: loadSecretKeys(process.env) });
   * ```
   */
  secretKeys?: KeySet;
  identity?: string;
  /** Passed through to the SDK worker (concurrency, cache size, shutdown grace time...). */
  workerOptions?: Partial<
    Omit<
      WorkerOptions,
      'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowsPath' | 'workflowBundle'
    >
  >;
}

/**
 * Bundles the agent workflow once; pass the result to several `createWorker` calls. For workers
 * with a payload codec, `encryptFailures` has the workflow's own failures encrypted too.
 *
 * @example
 * ```ts
 * const workflowBundle = await bundleWorkflows();
 * const workers = await Promise.all(queues.map((taskQueue) => createWorker({ ...options, taskQueue, workflowBundle })));
 * ```
 */
export function bundleWorkflows(options: { encryptFailures?: boolean } = {}): Promise<{ code: string }> {
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    logger: quietBundlerLogger,
    ...(options.encryptFailures ? { failureConverterPath: FAILURE_CONVERTER_PATH } : {}),
  });
}

/**
 * One call to run Countersign's agents on any Temporal: the agent workflow (bundled from the
 * installed package) and its activities, on `taskQueue`. Run it with `worker.run()`.
 *
 * @example
 * ```ts
 * const connection = await NativeConnection.connect({ address: 'temporal.internal:7233' });
 * const worker = await createWorker({
 *   connection,
 *   agents: [support],
 *   model: { baseUrl: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY },
 *   notifier,
 * });
 * await worker.run();
 * ```
 */
export function createWorker(options: CreateWorkerOptions): Promise<Worker> {
  const activities = createActivities({
    agents: options.agents,
    model: options.model,
    notifier: options.notifier,
    maxToolOutputBytes: options.maxToolOutputBytes,
    contentStore: options.contentStore,
    storeToolOutputsOverBytes: options.storeToolOutputsOverBytes,
    identity: options.identity ?? options.workerOptions?.identity,
    ...(options.secretKeys ? { sealer: secretSealer(options.secretKeys) } : {}),
  });
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    ...(options.identity ? { identity: options.identity } : {}),
    activities,
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : { workflowsPath: WORKFLOWS_PATH }),
    ...options.workerOptions,
    ...withPayloadCodec(options.workerOptions?.dataConverter, options.payloadCodec),
  });
}

/**
 * A worker's data converter with the codec last: encryption is the final step before the wire.
 * The SDK builds the activities' client from the same converter; replay takes it too.
 */
export function withPayloadCodec(
  dataConverter: DataConverter | undefined,
  codec: PayloadCodec | undefined,
): { dataConverter?: DataConverter } {
  if (!codec) return {};
  return {
    dataConverter: {
      failureConverterPath: FAILURE_CONVERTER_PATH,
      ...dataConverter,
      payloadCodecs: [...(dataConverter?.payloadCodecs ?? []), codec],
    },
  };
}

/** The bundler reports every module at info level; only problems are worth showing. */
const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string, meta?: Record<string, unknown>) => console.warn(message, meta ?? ''),
  error: (message: string, meta?: Record<string, unknown>) => console.error(message, meta ?? ''),
};
