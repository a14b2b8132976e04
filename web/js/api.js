// @ts-check
const TOKEN_KEY = 'countersign.token';

export const token = {
  get: () => localStorage.getItem(TOKEN_KEY) ?? '',
  set: (/** @type {string} */ value) => localStorage.setItem(TOKEN_KEY, value),
  clear: () => localStorage.removeItem(TOKEN_KEY),
};

/** @typedef {import('../types/inbox.js').FieldError} FieldError */

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {any} body the API's error answer (`{ error: { message, code, fields } }`), or what came instead
   */
  constructor(status, body) {
    super(body?.error?.message ?? `request failed (${status})`);
    this.status = status;
    /** @type {string | undefined} */
    this.code = body?.error?.code;
    /** @type {FieldError[]} */
    this.fields = body?.error?.fields ?? [];
  }
}

/**
 * The stored token as a header, or none: then the host's own session (a cookie its `authenticate`
 * reads, sent with every same-origin request) says who this is.
 */
/** @returns {Record<string, string>} */
export const authorization = () => (token.get() ? { authorization: `Bearer ${token.get()}` } : {});

/**
 * JSON over fetch, relative to the page (so under wherever the router is mounted); a non-2xx answer throws an ApiError.
 * `data` is the answer as the API's types (api/schemas.ts) describe it for the route: its reader names which.
 * @param {string} path
 * @param {{ method?: string, body?: unknown, headers?: Record<string, string> }} [request]
 * @returns {Promise<{ status: number, data: any }>}
 */
export async function api(path, { method = 'GET', body, headers = {} } = {}) {
  const response = await fetch(path, {
    method,
    headers: {
      ...authorization(),
      accept: 'application/json',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data);
  return { status: response.status, data };
}

/**
 * A GET of a text answer (a stored tool output) with the same token; errors come as JSON, as ApiErrors.
 * @param {string} path
 */
export async function apiText(path) {
  const response = await fetch(path, {
    headers: { ...authorization(), accept: 'text/plain, application/json' },
  });
  if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => null));
  return response.text();
}
