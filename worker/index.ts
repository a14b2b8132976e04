/**
 * `countersign/worker`: the Temporal worker that runs your agents (its workflow bundle, the model
 * and tool activities, and the notifier that mails approvers). Only the process that runs a worker
 * imports it, and only it needs `@temporalio/worker`.
 *
 * @example
 * ```ts
 * import { createWorker } from 'countersign/worker';
 * ```
 *
 * @module
 */
export {
  createWorker,
  bundleWorkflows,
  FAILURE_CONVERTER_PATH,
  WORKFLOWS_PATH,
  type CreateWorkerOptions,
} from './create-worker.js';
export type { ModelSettings, Notifier } from '../activities/index.js';
export type { DeliveryProgress } from '../activities/notifier.js';
export type {
  ApprovalChange,
  ChangedBy,
  EditNote,
  MessagesUpdate,
  PostedMessage,
  ReminderNote,
} from '../workflows/activity-types.js';
export { createNotifier, type NotifierOptions, type CountersignNotifier } from '../notify/notifier.js';
export type { SlackNotifierOptions } from '../notify/slack/options.js';
export { createMailTransport, type MailTransport, type MailMessage } from '../notify/transport.js';
