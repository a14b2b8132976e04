import type { Duration, DurationLike, Timestamp } from './proto.js';

/** Protobuf Duration/Timestamp <-> milliseconds. Decoded int64s arrive as numbers (see TO_OBJECT). */
export function durationMs(d: DurationLike): number {
  if (!d) return 0;
  return Number(d.seconds ?? 0) * 1000 + Math.floor(Number(d.nanos ?? 0) / 1e6);
}

export function msDuration(ms: number): Duration {
  const seconds = Math.floor(ms / 1000);
  return { seconds, nanos: (ms - seconds * 1000) * 1e6 };
}

export function msTimestamp(ms: number): Timestamp {
  const seconds = Math.floor(ms / 1000);
  return { seconds, nanos: (ms - seconds * 1000) * 1e6 };
}

export function timestampMs(t: DurationLike): number {
  return durationMs(t);
}
