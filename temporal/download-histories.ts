import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { GrpcStatus } from '../client/grpc-status.js';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { writeHistoryFile } from './history-file.js';

/**
 * What {@link downloadHistories} downloads: the runs named (`runIds`) or the runs a list query
 * matches (`query`), one or the other, into `outDir`.
 *
 * @example
 * ```ts
 * const options: DownloadHistoriesOptions = {
 *   query: "CountersignAgent = 'support' AND ExecutionStatus = 'Running'",
 *   outDir: 'test/histories',
 *   limit: 50,
 * };
 * ```
 */
export interface DownloadHistoriesOptions {
  /** Countersign run ids (each is the run's Temporal workflow id): the latest execution of each. */
  runIds?: string[];
  /**
   * A Temporal list query (visibility filter), as `temporal workflow list --query` takes it, for
   * example `CountersignAgent = 'support'`. Lists lag a little behind writes on a real server: a
   * run started a moment ago may not match yet.
   */
  query?: string;
  /** The folder the files go to; created when missing. Files of the same name are replaced. */
  outDir: string;
  /** With `query`: at most this many runs. */
  limit?: number;
}

/**
 * One history file written by {@link downloadHistories}.
 *
 * @example
 * ```ts
 * const [first]: DownloadedHistory[] = await downloadHistories(client, { runIds, outDir });
 * console.log(`${first.workflowId}: ${first.events} events in ${first.file}`);
 * ```
 */
export interface DownloadedHistory {
  /** The Countersign run id (the Temporal workflow id). */
  workflowId: string;
  /** The Temporal run id of the execution downloaded. */
  executionRunId: string;
  /** The file written. */
  file: string;
  /** How many events the history has. */
  events: number;
}

/** The SDK's WorkflowNotFoundError, or the server's NOT_FOUND as `fetchHistory` passes it on. */
function notFound(error: unknown): boolean {
  if (error instanceof WorkflowNotFoundError) return true;
  const codeOf = (e: unknown) => (e as { code?: unknown } | undefined)?.code;
  return (
    codeOf(error) === GrpcStatus.NOT_FOUND ||
    codeOf((error as { cause?: unknown }).cause) === GrpcStatus.NOT_FOUND
  );
}

/** A run id, workflow ids being free text, as a file name: `run-1234.json`. */
function fileName(workflowId: string, taken: Set<string>, executionRunId: string): string {
  const base = workflowId.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') || '_';
  const name = taken.has(base) ? `${base}.${executionRunId}` : base;
  taken.add(name);
  return `${name}.json`;
}

/**
 * Downloads the histories of real runs into history files (`<outDir>/<runId>.json`, the format
 * `replayHistories` reads), for replay tests: what `countersign histories download` does. A run
 * that is still waiting for approval is downloaded as far as it got, which is what a replay of
 * paused runs needs. An unknown run id is an error naming it.
 *
 * @example
 * ```ts
 * import { Client, Connection } from '@temporalio/client';
 * import { downloadHistories } from 'countersign/testing';
 *
 * const connection = await Connection.connect({ address: 'temporal.internal:7233' });
 * const client = new Client({ connection, namespace: 'payments' });
 * const written = await downloadHistories(client, { runIds: ['run-1234'], outDir: 'test/histories' });
 * ```
 */
export async function downloadHistories(
  client: Client,
  options: DownloadHistoriesOptions,
): Promise<DownloadedHistory[]> {
  const { runIds, query, outDir, limit } = options;
  if ((runIds === undefined) === (query === undefined)) {
    throw new Error('name the runs to download (runIds) or a list query (query), one of the two');
  }
  if (runIds?.length === 0) throw new Error('no run ids given');
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) {
    throw new Error(`limit must be a positive integer, not ${limit}`);
  }
  mkdirSync(outDir, { recursive: true });
  const taken = new Set<string>();
  const written: DownloadedHistory[] = [];

  const save = async (workflowId: string, executionRunId: string | undefined) => {
    let history;
    try {
      history = await client.workflow.getHandle(workflowId, executionRunId).fetchHistory();
    } catch (error) {
      throw new Error(
        notFound(error)
          ? `run ${workflowId} was not found in namespace ${client.options.namespace}`
          : `cannot read the history of ${workflowId}: ${(error as Error).message}`,
      );
    }
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    const runId = executionRunId ?? started?.originalExecutionRunId ?? 'unknown';
    const file = path.join(outDir, fileName(workflowId, taken, runId));
    writeHistoryFile(file, workflowId, history);
    written.push({ workflowId, executionRunId: runId, file, events: history.events?.length ?? 0 });
  };

  if (runIds) {
    for (const id of runIds) await save(id, undefined);
  } else {
    for await (const execution of client.workflow.list({ query })) {
      if (limit !== undefined && written.length >= limit) break;
      await save(execution.workflowId, execution.runId);
    }
  }
  return written;
}
