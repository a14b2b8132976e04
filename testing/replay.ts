import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PayloadCodec } from '@temporalio/common';
import { Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { readHistoryFile, type RecordedHistory } from '../temporal/history-file.js';
import { WORKFLOWS_PATH, withPayloadCodec } from '../worker/create-worker.js';

/**
 * What {@link replayHistories} replays: a history file, a folder of them (every `*.json` in it, not
 * in subfolders), or a history already read ({@link RecordedHistory}).
 *
 * @example
 * ```ts
 * const sources: HistorySource[] = ['test/histories', new URL('./paused/run-1234.json', import.meta.url)];
 * await replayHistories(sources);
 * ```
 */
export type HistorySource = string | URL | RecordedHistory;

/**
 * How {@link replayHistories} replays.
 *
 * @example
 * ```ts
 * // Collect every result instead of throwing on the first failing replay:
 * const results = await replayHistories('test/histories', { throwOnFailure: false });
 * ```
 */
export interface ReplayHistoriesOptions {
  /**
   * The workflow code to replay against: Countersign's own (the workflows `createWorker` runs) by
   * default. Another module exporting `agentWorkflow` tests a change to it.
   */
  workflowsPath?: string;
  /** A bundle made once (`bundleWorkflows()`), to skip bundling when a test replays several times. */
  workflowBundle?: { code: string };
  /**
   * Throw a {@link HistoryReplayError} when a replay fails (default `true`), so a test fails with
   * every failing run named; `false` returns the results for the test to inspect.
   */
  throwOnFailure?: boolean;
  /**
   * The codec the recorded runs' workers used (`createWorker({ payloadCodec })`), holding every key
   * their payloads name: histories downloaded from a namespace with encryption on stay encrypted
   * as stored, and replay through it. It runs after any codec of `replayWorkerOptions.dataConverter`.
   *
   * @example
   * ```ts
   * import { aesGcmCodec, loadPayloadKeys } from 'countersign';
   * import { replayHistories } from 'countersign/testing';
   *
   * const keys = loadPayloadKeys(process.env); // the keys of the runs recorded
   * await replayHistories('test/histories', { payloadCodec: keys && aesGcmCodec(keys) });
   * ```
   */
  payloadCodec?: PayloadCodec;
  /** Passed through to the SDK's replay worker (interceptors, sinks...). */
  replayWorkerOptions?: Partial<Omit<ReplayWorkerOptions, 'workflowsPath' | 'workflowBundle'>>;
}

/**
 * The replay of one history.
 *
 * @example
 * ```ts
 * const results: ReplayResult[] = await replayHistories('test/histories', { throwOnFailure: false });
 * for (const r of results) if (!r.ok) console.log(`${r.workflowId} (${r.file}): ${r.error?.message}`);
 * ```
 */
export interface ReplayResult {
  /** The Countersign run id (the Temporal workflow id) of the history. */
  workflowId: string;
  /** The file it was read from, when it came from one. */
  file?: string;
  /** Whether the current workflow code replayed the history to its end without a mismatch. */
  ok: boolean;
  /**
   * `true` when the failure is non-determinism: the code took another path than the recorded
   * run (added, removed or reordered activities, timers or branches).
   */
  nondeterministic: boolean;
  /** Why it failed: the SDK's `DeterminismViolationError` or `ReplayError`. */
  error?: Error;
}

/**
 * Thrown by {@link replayHistories} when a history does not replay: its message names each failing
 * run, its file and the error; `results` holds every result.
 *
 * @example
 * ```ts
 * try {
 *   await replayHistories('test/histories');
 * } catch (error) {
 *   if (error instanceof HistoryReplayError) console.log(error.failures.map((f) => f.workflowId));
 *   throw error;
 * }
 * ```
 */
export class HistoryReplayError extends Error {
  override readonly name = 'HistoryReplayError';
  /** The results that failed. */
  readonly failures: ReplayResult[];

  constructor(readonly results: ReplayResult[]) {
    const failures = results.filter((r) => !r.ok);
    super(
      [
        `${failures.length} of ${results.length} recorded histories do not replay against the current workflow code:`,
        ...failures.map(
          (f) =>
            `  ${f.workflowId}${f.file ? ` (${f.file})` : ''}: ${f.nondeterministic ? 'non-determinism: ' : ''}${summary(f.error)}`,
        ),
        'A change that running workflows would take another path through needs patched() from @temporalio/workflow;',
        'see docs/testing.md ("Replay tests") in the Countersign repository.',
      ].join('\n'),
    );
    this.failures = failures;
  }
}

/** The core's own words when the SDK wraps them (`... message: "[TMPRL1100] Nondeterminism error: ..."`). */
function summary(error: Error | undefined): string {
  if (!error) return 'failed';
  return /message: "(\[TMPRL\d+\][^"]*)"/.exec(error.message)?.[1] ?? error.message;
}

interface Loaded {
  recorded: RecordedHistory;
  file?: string;
}

function load(source: HistorySource): Loaded[] {
  if (typeof source !== 'string' && !(source instanceof URL)) return [{ recorded: source }];
  const where = source instanceof URL ? fileURLToPath(source) : source;
  let isDir: boolean;
  try {
    isDir = statSync(where).isDirectory();
  } catch {
    throw new Error(`replayHistories: no history file or folder at ${where}`);
  }
  if (!isDir) return [{ recorded: readHistoryFile(where), file: where }];
  return readdirSync(where)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => {
      const file = path.join(where, name);
      return { recorded: readHistoryFile(file), file };
    });
}

/**
 * Replays recorded run histories against Countersign's current workflow code, in the test runner
 * of your choice, so a change that would break runs already under way (paused for an approval in
 * production, say) fails a test instead of those runs. Histories come from `countersign histories
 * download` (or {@link downloadHistories}, or {@link writeHistoryFile}).
 *
 * Each history is replayed in turn; by default a failure throws a {@link HistoryReplayError}
 * naming each failing run, its file and the determinism error. Finding no history at all is an
 * error too, so a wrong path cannot pass. The replay uses the process's Temporal `Runtime`.
 *
 * @example
 * ```ts
 * import { test } from 'node:test';
 * import { replayHistories } from 'countersign/testing';
 *
 * test('runs recorded in production still replay', async () => {
 *   await replayHistories('test/histories'); // throws, naming each run that does not
 * });
 * ```
 */
export async function replayHistories(
  sources: HistorySource | HistorySource[],
  options: ReplayHistoriesOptions = {},
): Promise<ReplayResult[]> {
  const loaded = (Array.isArray(sources) ? sources : [sources]).flatMap(load);
  if (loaded.length === 0) {
    throw new Error(`replayHistories: no history files (*.json) in ${String(sources)}`);
  }
  const workerOptions: ReplayWorkerOptions = {
    ...options.replayWorkerOptions,
    ...withPayloadCodec(options.replayWorkerOptions?.dataConverter, options.payloadCodec),
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : { workflowsPath: options.workflowsPath ?? WORKFLOWS_PATH }),
  };
  const results: ReplayResult[] = [];
  // The SDK replays one history at a time and yields their results in the order given.
  const replays = Worker.runReplayHistories(
    workerOptions,
    loaded.map(({ recorded }) => ({ workflowId: recorded.workflowId, history: recorded.history })),
  );
  for await (const replayed of replays) {
    const { file } = loaded[results.length]!;
    const error = replayed.error;
    results.push({
      workflowId: replayed.workflowId,
      ...(file ? { file } : {}),
      ok: error === undefined,
      nondeterministic: error instanceof DeterminismViolationError,
      ...(error ? { error } : {}),
    });
  }
  if (options.throwOnFailure !== false && results.some((r) => !r.ok)) throw new HistoryReplayError(results);
  return results;
}
