export { createWorker, bundleWorkflows, WORKFLOWS_PATH, type CreateWorkerOptions } from './create-worker.js';
export type { ModelSettings, Notifier } from '../activities/index.js';
