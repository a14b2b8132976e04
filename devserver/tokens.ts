import { invalid } from './errors.js';

/**
 * Task tokens are opaque to workers; ours are compact JSON naming what the task belongs to.
 * A token that no longer matches the run's state is reported as NOT_FOUND by the caller.
 */
export type TaskToken =
  | { k: 'w'; r: string; s: number; a: number }
  | { k: 'a'; r: string; s: number; a: number }
  | { k: 'q'; q: string };

export function encodeToken(t: TaskToken): Buffer {
  return Buffer.from(JSON.stringify(t));
}

export function decodeToken(bytes: Uint8Array | null | undefined, kind: TaskToken['k']): TaskToken {
  if (!bytes || bytes.length === 0) throw invalid('taskToken is required');
  let t: TaskToken;
  try {
    t = JSON.parse(Buffer.from(bytes).toString('utf8')) as TaskToken;
  } catch {
    throw invalid('taskToken is malformed');
  }
  if (!t || typeof t !== 'object' || t.k !== kind)
    throw invalid('taskToken is malformed or of the wrong kind');
  return t;
}
