import type { RunEvent } from '../../protocol/index.js';

/**
 * Where an event stands in the inbox stream's order: its time (the workflow time of the step that
 * wrote it, also the run's change time for that step), then its run, then its id in the run. The
 * stream's ids (`<epoch ms>~<runId>~<event id>`) spell it out.
 */
export interface EventKey {
  at: number;
  runId: string;
  id: number;
}

export const keyOf = (event: RunEvent): EventKey => ({
  at: Date.parse(event.at),
  runId: event.runId,
  id: event.id,
});

/** Negative when `a` comes before `b` in the stream's order. */
export function compareKeys(a: EventKey, b: EventKey): number {
  if (a.at !== b.at) return a.at - b.at;
  if (a.runId !== b.runId) return a.runId < b.runId ? -1 : 1;
  return a.id - b.id;
}
