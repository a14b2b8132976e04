import type { ErrorRequestHandler, RequestHandler } from 'express';
import { z } from 'zod';
import {
  ApprovalStatus,
  ApprovalView,
  DecisionOutcome,
  toPointer,
  type FieldError,
} from '../protocol/index.js';
import { grpcStatus } from '../client/grpc-status.js';
import { ApiErrorCode } from '../errors/api-error-codes.js';
import { HttpError } from '../errors/http-error.js';

/**
 * The one error shape of the API: `{ error: { message, code, fields? } }`, and what some errors add.
 * Every field an error carries is declared here, so the OpenAPI document says it; `code` is one of
 * the closed list `API_ERROR_CODES`.
 */
export const ErrorBody = z.strictObject({
  error: z.strictObject({
    message: z.string(),
    code: ApiErrorCode,
    /** Each problem at a JSON Pointer into what was sent (`/args/amount`). */
    fields: z.array(z.strictObject({ path: z.string(), message: z.string() })).optional(),
    /** `already_settled`: the approval's status now. */
    status: ApprovalStatus.optional(),
    /** A decision the workflow refused: its outcome. */
    outcome: DecisionOutcome.optional(),
    /**
     * `stale_revision` (412) and `revision_required` (428): the approval as it is now, to show again
     * (without its `schema` when it was read from the run's memo).
     */
    current: ApprovalView.partial({ schema: true }).optional(),
    /** `idempotency_key_reused` (422): the approval the key was first used with. */
    trackingId: z.string().optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;
/** What an error adds to its message, code and fields: only what `ErrorBody` declares. */
export type ErrorExtra = Omit<ErrorBody['error'], 'message' | 'code' | 'fields'>;

export { HttpError };

export function fieldErrors(error: z.ZodError, prefix: readonly PropertyKey[] = []): FieldError[] {
  return error.issues.map((issue) => ({
    path: toPointer([...prefix, ...issue.path]),
    message: issue.message,
  }));
}

/** Validation at the edge: a bad body, query or parameter is a 400 with field-level errors. */
export function parse<T extends z.ZodType>(schema: T, value: unknown, what = 'request body'): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success && value === undefined && what === 'request body')
    throw new HttpError(400, 'this request needs a JSON body, sent with Content-Type: application/json', {
      code: 'invalid_request',
    });
  if (!result.success)
    throw new HttpError(400, `invalid ${what}`, {
      code: 'invalid_request',
      fields: fieldErrors(result.error),
    });
  return result.data;
}

export const notFound: RequestHandler = (req) => {
  throw new HttpError(404, `no route ${req.method} ${req.path}`, { code: 'not_found' });
};

export const errorHandler: ErrorRequestHandler = (err: unknown, _req, res, next) => {
  if (res.headersSent) return next(err);
  let status = 500;
  let body: ErrorBody;
  if (err instanceof HttpError) {
    status = err.status;
    body = { error: { message: err.message, code: err.details.code, fields: err.details.fields } };
    if (err.details.extra) Object.assign(body.error, err.details.extra);
    if (err.details.retryAfter !== undefined) res.setHeader('Retry-After', String(err.details.retryAfter));
  } else if (isClientError(err)) {
    // Body parsers and the router (a malformed %-escape in the path) throw these.
    status = err.status;
    const code =
      err.type === 'entity.too.large'
        ? 'too_large'
        : err.type === 'entity.parse.failed'
          ? 'invalid_json'
          : 'bad_request';
    const message = {
      too_large: 'request body too large',
      invalid_json: 'request body is not valid JSON',
      bad_request: 'malformed request',
    }[code];
    body = { error: { message, code } };
  } else if (temporalBusy(err)) {
    // A real cluster throttles, restarts and cancels in-flight reads: the client should try again.
    status = 503;
    res.setHeader('Retry-After', '1');
    body = { error: { message: 'Temporal is unavailable or busy; try again', code: 'temporal_unavailable' } };
  } else {
    console.error('countersign api:', err);
    body = { error: { message: 'internal error', code: 'internal' } };
  }
  res.status(status).json(body);
};

/** gRPC codes that say "not now" rather than "wrong": CANCELLED, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, UNAVAILABLE. */
const RETRYABLE_GRPC = new Set([1, 4, 8, 14]);

function temporalBusy(err: unknown): boolean {
  const code = grpcStatus(err)?.code;
  return code !== undefined && RETRYABLE_GRPC.has(code);
}

function isClientError(err: unknown): err is { status: number; type?: string } {
  if (typeof err !== 'object' || err === null || !('status' in err)) return false;
  return typeof err.status === 'number' && err.status >= 400 && err.status < 500;
}
