/**
 * Countersign: LLM agents whose sensitive tool calls wait, durably on Temporal, for a human to
 * approve, edit, reject or answer them.
 *
 * The package is split by role, as Temporal's SDK is:
 * - `countersign` (this module): defining tools and agents, the protocol's types and schemas, and
 *   what every process shares (Temporal settings, payload encryption, secret sealing, the content
 *   store, the link-signing secret). It loads no Temporal worker.
 * - `countersign/worker`: the worker that runs agents (needs `@temporalio/worker`).
 * - `countersign/client`: starting runs and deciding from your own code.
 * - `countersign/api`: the REST API and the inbox, as an express router.
 * - `countersign/workflow`: what code inside a Temporal workflow may import.
 * - `countersign/testing`: the scripted model, test Temporal and history replay.
 * - `countersign/dev`: the local Temporal dev server and model server the demo runs on.
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
export { CountersignError, API_ERROR_CODES, ApiErrorCode } from './errors/index.js';
export {
  AgentSpec,
  type AgentSpecInput,
  ToolSpec,
  ApprovalKind,
  ApprovalOutcome,
  ApprovalTicket,
  ApprovalView,
  ArgChange,
  Requirement,
  Signoff,
  UnknownAttempt,
  ApproverConfig,
  ApproverIdentity,
  ApproversFile,
  Approver,
  Channel,
  Decision,
  DecisionOutcome,
  DecisionSignal,
  FieldError,
  PlanStep,
  RefusalCode,
  SignalDecision,
  RunEvent,
  RunEventType,
  JsonObject,
  JsonSchema,
  JsonValue,
  NAME_PATTERN,
  Name,
  ASK_HUMAN_TOOL,
  ApprovalPolicy,
  type ApprovalPolicyInput,
  ApprovalTier,
  ComparisonOp,
  Condition,
  DecisionType,
  PolicyRule,
  RunCountCondition,
  RunTotalCondition,
  MAX_SUB_AGENT_DEPTH,
  SubAgentChain,
  SubAgentFailureCode,
  StandingBound,
  StandingTerms,
  StandingStatus,
  StandingApproval,
  RevokeStandingRequest,
  TimeoutAction,
  TotalOp,
  Verdict,
  CancelRequest,
  RunControl,
  RunInput,
  RunOutput,
  RunState,
  RunSummary,
  RunUnreadable,
  StartRunRequest,
  ToolCall,
  TranscriptMessage,
  DEFAULT_MODEL,
  DEFAULT_TASK_QUEUE,
  SEARCH_ATTRIBUTES,
  WAITING_FILTER,
  SecretRequest,
  SecretSpec,
  type SecretSpecInput,
  ApprovalStatus,
  RunStatus,
  isRunId,
  parseTrackingId,
  trackingIdFor,
} from './protocol/index.js';
export {
  loadTemporalConfig,
  connectionOptions,
  type TemporalConfig,
  type TlsSettings,
} from './temporal/config.js';
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
export { fileContentStore, type ContentStore } from './content-store/content-store.js';
export { s3ContentStore, type S3ContentStoreOptions } from './content-store/s3-content-store.js';
export { loadSigningSecret } from './notify/signing-secret.js';
export { signingKeyId } from './notify/signing-key-id.js';
