import { ApiErrorCode } from '../../errors/api-error-codes.js';

/**
 * An error body the API answered names a code of the closed list `API_ERROR_CODES`: the stack's
 * `http` checks every answer with it, so any API test that meets a route answering another code
 * fails there, whatever it asserts itself.
 */
export function assertListedErrorCode(route: string, status: number, body: unknown): void {
  if (status < 400 || typeof body !== 'object' || body === null || !('error' in body)) return;
  const code = (body.error as { code?: unknown } | null)?.code;
  if (!ApiErrorCode.safeParse(code).success) {
    throw new Error(
      `${route} answered ${status} with the error code ${JSON.stringify(code)}, which API_ERROR_CODES does not list`,
    );
  }
}
