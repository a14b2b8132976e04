/**
 * `countersign/testing`: helpers for testing your own agents the way Countersign tests its own.
 *
 * - {@link FakeModel}: a scripted OpenAI-compatible model over real HTTP ({@link calls},
 *   {@link call}, {@link say}, {@link fail} write its replies);
 * - {@link createTestTemporal}: a Temporal test environment (the real dev server or the
 *   time-skipping test server) with Countersign's search attributes registered, in one call;
 * - {@link replayHistories}: replays recorded histories of real runs against the current workflow
 *   code, so a change that would break runs already under way fails a test; {@link downloadHistories}
 *   (the `countersign histories download` command) records them.
 *
 * These load `@temporalio/testing` and `@temporalio/worker`: import them from tests, not from
 * production code.
 *
 * @example
 * ```ts
 * import { FakeModel, call, calls, createTestTemporal, replayHistories, say } from 'countersign/testing';
 * ```
 *
 * @module
 */
export {
  FakeModel,
  call,
  calls,
  fail,
  say,
  type AssistantReply,
  type ChatCompletionRequest,
  type Conversation,
  type ErrorReply,
  type ModelReply,
  type ScriptStep,
} from './fake-model.js';
export { createTestTemporal, type CreateTestTemporalOptions, type TestTemporal } from './test-temporal.js';
export {
  HistoryReplayError,
  replayHistories,
  type HistorySource,
  type ReplayHistoriesOptions,
  type ReplayResult,
} from './replay.js';
export { readHistoryFile, writeHistoryFile, type RecordedHistory } from '../temporal/history-file.js';
export {
  downloadHistories,
  type DownloadHistoriesOptions,
  type DownloadedHistory,
} from '../temporal/download-histories.js';
