import { formatWithOptions } from 'node:util';
import { DefaultLogger, type LogEntry, type LogLevel } from '@temporalio/worker';

/** The failure type Countersign's tool activity ends with when nobody knows what an attempt did. */
const OUTCOME_UNKNOWN = 'ToolOutcomeUnknown';

const format = formatWithOptions.bind(undefined, { colors: Boolean(process.stderr.isTTY) });

/**
 * An activity's failure as one line. The SDK logs it with the error's stack and every field of
 * the task, thirty lines that read like a crash in the `npm start` terminal; a tool failing, or
 * ending with its outcome unknown, is part of a run, which the run itself reports and records.
 */
function activityFailureLine(meta: Record<string, unknown>): string | undefined {
  const error = meta.error;
  if (!(error instanceof Error)) return undefined;
  const { type } = error as { type?: unknown };
  const failure = typeof type === 'string' ? type : error.name;
  const run = typeof meta.workflowId === 'string' ? `run ${meta.workflowId}` : 'a run';
  const attempt = typeof meta.attempt === 'number' ? `attempt ${meta.attempt}` : 'an attempt';
  if (failure === OUTCOME_UNKNOWN) {
    return `${run}: nobody knows whether a tool call's ${attempt} acted (${error.message}); it is not retried, and the run asks a person (npx countersign approvals list)`;
  }
  const activity = typeof meta.activityType === 'string' ? meta.activityType : 'an activity';
  return `${run}: ${activity} failed (${attempt}): ${failure}: ${error.message}`;
}

function write(entry: LogEntry): void {
  const date = new Date(Number(entry.timestampNanos / 1_000_000n));
  const line =
    entry.message === 'Activity failed' && entry.meta ? activityFailureLine(entry.meta) : undefined;
  const text = line ?? (entry.meta === undefined ? entry.message : `${entry.message} ${format(entry.meta)}`);
  process.stderr.write(`${format(date)} [${entry.level}] ${text}\n`);
}

/** The worker's logger for `npm start`: the SDK's, but an activity's failure takes one line. */
export function demoLogger(level: LogLevel): DefaultLogger {
  return new DefaultLogger(level, write);
}
