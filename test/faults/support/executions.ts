import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { JsonObject } from '../../../protocol/index.js';

/** One call of the fault tool's `execute`, as it logs it. */
export interface Execution {
  /** `applied`: the side effect happened; `deduped`: a retry found its key already applied. */
  kind: 'applied' | 'deduped';
  key: string;
  runId: string;
  toolCallId: string;
  trackingId?: string;
  approvedBy: string[];
  args: JsonObject;
  pid: number;
}

export function readExecutions(file: string): Execution[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Execution);
}

/** Appended and fsynced before the tool returns, so a SIGKILL right after cannot lose it. */
export function appendExecution(file: string, execution: Execution): void {
  const fd = openSync(file, 'a');
  try {
    writeSync(fd, `${JSON.stringify(execution)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
