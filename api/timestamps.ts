/** A Temporal timestamp (seconds and nanoseconds) in epoch milliseconds. */
export function timestampMs(time: { seconds?: unknown; nanos?: number | null }): number {
  return Number(time.seconds ?? 0) * 1000 + Math.floor((time.nanos ?? 0) / 1e6);
}
