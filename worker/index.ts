export {
  createWorker,
  bundleWorkflows,
  FAILURE_CONVERTER_PATH,
  WORKFLOWS_PATH,
  type CreateWorkerOptions,
} from './create-worker.js';
export type { ModelSettings, Notifier } from '../activities/index.js';
export { fileContentStore, type ContentStore } from '../activities/content-store.js';
export { s3ContentStore, type S3ContentStoreOptions } from '../activities/s3-content-store.js';
