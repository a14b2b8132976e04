/**
 * A tracking id names one approval and routes by itself: `<runId>.<seq>`, where the run id is the
 * workflow id. Any API instance can signal the waiting run from the id alone, with no lookup table.
 */
const RUN_ID = /^[A-Za-z0-9_-]{1,120}$/;
const TRACKING_ID = /^([A-Za-z0-9_-]{1,120})\.([1-9][0-9]{0,8})$/;

/**
 * Whether `value` can be a run id (the workflow id): letters, digits, `_` and `-`, at most 120.
 *
 * @example
 * ```ts
 * import { isRunId } from 'countersign';
 *
 * isRunId('run-3f2a9c'); // true
 * isRunId('../admin'); // false
 * ```
 */
export function isRunId(value: string): boolean {
  return RUN_ID.test(value);
}

/**
 * The tracking id of the run's `seq`th approval.
 *
 * @example
 * ```ts
 * import { trackingIdFor } from 'countersign';
 *
 * trackingIdFor('run-42', 3); // 'run-42.3'
 * ```
 */
export function trackingIdFor(runId: string, seq: number): string {
  return `${runId}.${seq}`;
}

/**
 * The run and sequence number a tracking id names, or null when it is not one.
 *
 * @example
 * ```ts
 * import { parseTrackingId } from 'countersign';
 *
 * parseTrackingId('run-42.3'); // { runId: 'run-42', seq: 3 }
 * parseTrackingId('run-42'); // null
 * ```
 */
export function parseTrackingId(value: string): { runId: string; seq: number } | null {
  const match = TRACKING_ID.exec(value);
  if (!match) return null;
  return { runId: match[1]!, seq: Number(match[2]) };
}
