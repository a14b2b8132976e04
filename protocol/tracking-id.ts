/**
 * A tracking id names one approval and routes by itself: `<runId>.<seq>`, where the run id is the
 * workflow id. Any API instance can signal the waiting run from the id alone, with no lookup table.
 */
const RUN_ID = /^[A-Za-z0-9_-]{1,120}$/;
const TRACKING_ID = /^([A-Za-z0-9_-]{1,120})\.([1-9][0-9]{0,8})$/;

export function isRunId(value: string): boolean {
  return RUN_ID.test(value);
}

export function trackingIdFor(runId: string, seq: number): string {
  return `${runId}.${seq}`;
}

export function parseTrackingId(value: string): { runId: string; seq: number } | null {
  const match = TRACKING_ID.exec(value);
  if (!match) return null;
  return { runId: match[1]!, seq: Number(match[2]) };
}
