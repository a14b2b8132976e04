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

/** The gRPC status codes Countersign tells apart (the numbers are gRPC's own, fixed by its spec). */
export const GrpcStatus = {
  CANCELLED: 1,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  UNAVAILABLE: 14,
} as const;
