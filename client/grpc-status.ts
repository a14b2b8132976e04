/**
 * The gRPC status of a Temporal error, found wherever the client wrapped it (a ServiceError's
 * cause, a few levels down at most); undefined when none carries one.
 */
export function grpcStatus(err: unknown): { code: number; details?: string } | undefined {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 4; depth++) {
    const { code, details } = e as { code?: unknown; details?: unknown };
    if (typeof code === 'number') return { code, ...(typeof details === 'string' ? { details } : {}) };
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
