import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ModelSettings, type Notifier } from '../activities/index.js';
import type { AgentDefinition } from '../define/index.js';
import { DEFAULT_TASK_QUEUE } from '../protocol/index.js';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

export interface CreateWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /** The agents whose tools this worker runs. */
  agents: AgentDefinition[];
  model: ModelSettings;
  notifier?: Notifier;
  /** A bundle made once with `bundleWorkflows()`, to skip bundling when a process starts several workers. */
  workflowBundle?: { code: string };
  identity?: string;
  /** Passed through to the SDK worker (concurrency, cache size, shutdown grace time...). */
  workerOptions?: Partial<
    Omit<
      WorkerOptions,
      'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowsPath' | 'workflowBundle'
    >
  >;
}

/** Bundles the agent workflow once; pass the result to several `createWorker` calls. */
export function bundleWorkflows(): Promise<{ code: string }> {
  return bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietBundlerLogger });
}

/** One call to run Countersign's agents on any Temporal: the agent workflow and its activities. */
export function createWorker(options: CreateWorkerOptions): Promise<Worker> {
  const activities = createActivities({
    agents: options.agents,
    model: options.model,
    notifier: options.notifier,
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
  });
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
