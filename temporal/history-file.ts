import { readFileSync, writeFileSync } from 'node:fs';
import proto from '@temporalio/proto';
import type { temporal } from '@temporalio/proto';

const History = proto.temporal.api.history.v1.History;

/**
 * A recorded run, as a history file holds it: the run's workflow id (tracking ids embed it, so a
 * replay needs the real one) and its history.
 *
 * On disk it is JSON, `{ "workflowId": "run-…", "history": { "events": [...] } }`, the history as
 * protobuf object JSON (int64 and bytes as strings, enums by name): what `countersign histories
 * download` writes and `replayHistories` reads. The SDK's historyToJSON/historyFromJSON are not used:
 * `@temporalio/common` and `@temporalio/proto` may each carry their own protobufjs copy, and one
 * rejects the other's types.
 *
 * @example
 * ```ts
 * import { readHistoryFile, type RecordedHistory } from 'countersign/testing';
 *
 * const recorded: RecordedHistory = readHistoryFile('test/histories/run-1234.json');
 * console.log(recorded.workflowId, recorded.history.events?.length);
 * ```
 */
export interface RecordedHistory {
  /** The Countersign run id, which is the run's Temporal workflow id. */
  workflowId: string;
  /** The run's event history. */
  history: temporal.api.history.v1.IHistory;
}

/**
 * Writes a run's history to a history file (the format of {@link RecordedHistory}), replacing the
 * file if it exists.
 *
 * @example
 * ```ts
 * import { Client } from '@temporalio/client';
 * import { writeHistoryFile } from 'countersign/testing';
 *
 * const client = new Client();
 * const history = await client.workflow.getHandle(runId).fetchHistory();
 * writeHistoryFile(`test/histories/${runId}.json`, runId, history);
 * ```
 */
export function writeHistoryFile(
  path: URL | string,
  workflowId: string,
  history: temporal.api.history.v1.IHistory,
): void {
  const json = History.toObject(History.fromObject(history), { longs: String, enums: String, bytes: String });
  writeFileSync(path, JSON.stringify({ workflowId, history: json }, null, 1) + '\n');
}

/**
 * Reads a history file (the format of {@link RecordedHistory}). A file that is not one is an error
 * naming it.
 *
 * @example
 * ```ts
 * import { Worker } from '@temporalio/worker';
 * import { readHistoryFile } from 'countersign/testing';
 *
 * const { workflowId, history } = readHistoryFile('test/histories/run-1234.json');
 * await Worker.runReplayHistory({ workflowsPath }, history, workflowId);
 * ```
 */
export function readHistoryFile(
  path: URL | string,
): RecordedHistory & { history: temporal.api.history.v1.History } {
  let file: { workflowId?: unknown; history?: unknown };
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as typeof file;
  } catch (error) {
    throw new Error(`${String(path)} is not a history file: ${(error as Error).message}`);
  }
  if (typeof file.workflowId !== 'string' || typeof file.history !== 'object' || file.history === null) {
    throw new Error(`${String(path)} is not a history file: it needs a workflowId and a history`);
  }
  return { workflowId: file.workflowId, history: History.fromObject(file.history) };
}
