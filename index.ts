/**
 * Countersign: LLM agents whose sensitive tool calls wait, durably on Temporal, for a human to
 * approve, edit, reject or answer them. Define tools and agents, run a worker, mount the API in your
 * own express app, and decide from the inbox, REST, email links or the terminal.
 *
 * Code that runs inside Temporal workflows imports `countersign/workflow` instead: it pulls in no
 * Node module. Test helpers are in `countersign/testing`.
 *
 * @packageDocumentation
 */
export {
  defineTool,
  defineAgent,
  toAgentSpec,
  OutcomeUnknownError,
  type ToolDefinition,
  type ToolContext,
  type AgentDefinition,
} from './define/index.js';
export {
  createWorker,
  bundleWorkflows,
  FAILURE_CONVERTER_PATH,
  WORKFLOWS_PATH,
  type CreateWorkerOptions,
  type ModelSettings,
  type Notifier,
  fileContentStore,
  s3ContentStore,
  type S3ContentStoreOptions,
  type ContentStore,
} from './worker/index.js';
export {
  startRun,
  sendDecision,
  supplySecret,
  type SecretSupply,
  cancelRun,
  pauseRun,
  resumeRun,
  listPendingApprovals,
  getRunState,
  getRunEvents,
  getFinalState,
  getDecisionOutcome,
  registerSearchAttributes,
  UnknownApprovalError,
  type StartRunOptions,
  type PendingApprovalFilter,
} from './client/index.js';
export {
  countersignRouter,
  createApi,
  type CountersignApiOptions,
  type Authenticate,
  type FindApprover,
} from './api/create-api.js';
export { servingGate, type ServingGate, type ServingGateOptions } from './api/serving-gate.js';
export {
  aesGcmCodec,
  ENCRYPTED_ENCODING,
  ENCRYPTION_KEY_ID,
  type AesGcmCodecOptions,
} from './codec/aes-gcm-codec.js';
export { loadPayloadKeys, PAYLOAD_KEYS_VARIABLE } from './codec/env-keys.js';
export type { KeySet } from './codec/keyring.js';
export {
  loadSecretKeys,
  secretSealer,
  SECRET_KEYS_VARIABLE,
  type SecretBinding,
  type SecretSealer,
} from './secrets/sealer.js';
export { createNotifier, type NotifierOptions, type CountersignNotifier } from './notify/notifier.js';
export { createMailTransport, type MailTransport, type MailMessage } from './notify/transport.js';
export { loadSigningSecret } from './notify/signing-secret.js';
export {
  loadTemporalConfig,
  connectionOptions,
  type TemporalConfig,
  type TlsSettings,
} from './temporal/config.js';
export {
  writeInstanceFile,
  removeInstanceFile,
  readInstanceFile,
  type InstanceFile,
} from './cli/instance-file.js';
export * from './protocol/index.js';
