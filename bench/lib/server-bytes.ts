/** Bytes a paused run keeps on the Temporal server that the system wrote there, as the API returns them. */
export interface RunBytes {
  /** Its history's events, encoded as the server stores them. */
  history: number;
  /** Its memo. */
  memo: number;
  /** Its search attributes. */
  searchAttributes: number;
}

/** Bytes per paused run on the server, and which of them the system wrote. */
export interface ServerBytesSplit extends RunBytes {
  /** Runs weighed. */
  sampled: number;
  /** What the server's file grew by per run, less the three above: its own rows and indexes. */
  server: number;
}

/**
 * The mean of the weighed runs, set against the growth of the server's file per paused run;
 * undefined when no run was weighed.
 */
export function splitServerBytes(
  samples: readonly RunBytes[],
  perPausedRun: number,
): ServerBytesSplit | undefined {
  if (samples.length === 0) return undefined;
  const mean = (key: keyof RunBytes) => samples.reduce((sum, s) => sum + s[key], 0) / samples.length;
  const history = mean('history');
  const memo = mean('memo');
  const searchAttributes = mean('searchAttributes');
  return {
    sampled: samples.length,
    history,
    memo,
    searchAttributes,
    server: perPausedRun - history - memo - searchAttributes,
  };
}
