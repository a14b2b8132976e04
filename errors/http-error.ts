import type { ErrorExtra } from '../api/errors.js';
import type { ApprovalView, FieldError } from '../protocol/index.js';
import type { ApiErrorCode } from './api-error-codes.js';
import { brandError, CountersignError } from './countersign-error.js';

/**
 * What the REST API answers instead of a result: an HTTP status and a JSON error body whose `code`
 * (also this error's `code`) is one of `API_ERROR_CODES`. Thrown by the API's routes; its error
 * handler writes the body.
 *
 * @example
 * ```ts
 * import { HttpError } from 'countersign/api';
 *
 * throw new HttpError(409, `run ${runId} has already ended`, { code: 'run_closed' });
 * ```
 */
export class HttpError extends CountersignError<ApiErrorCode> {
  static {
    brandError(this, 'HttpError');
  }

  constructor(
    readonly status: number,
    message: string,
    readonly details: {
      code: ApiErrorCode;
      fields?: FieldError[];
      extra?: ErrorExtra;
      /** An email link's secret approval: its page says where to supply the secret (never sent as JSON). */
      secretApproval?: ApprovalView;
      /** Seconds to wait before trying again: sent as Retry-After. */
      retryAfter?: number;
    },
  ) {
    super(details.code, message);
  }
}
