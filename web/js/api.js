const TOKEN_KEY = 'countersign.token';

export const token = {
  get: () => localStorage.getItem(TOKEN_KEY) ?? '',
  set: (value) => localStorage.setItem(TOKEN_KEY, value),
  clear: () => localStorage.removeItem(TOKEN_KEY),
};

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `request failed (${status})`);
    this.status = status;
    this.code = body?.error?.code;
    this.fields = body?.error?.fields ?? [];
  }
}

const authorization = () => `Bearer ${token.get()}`;

/** JSON over fetch with the stored bearer token; a non-2xx answer throws an ApiError. */
export async function api(path, { method = 'GET', body, headers = {} } = {}) {
  const response = await fetch(path, {
    method,
    headers: {
      authorization: authorization(),
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

/** A GET of a text answer (a stored tool output) with the same token; errors come as JSON, as ApiErrors. */
export async function apiText(path) {
  const response = await fetch(path, {
    headers: { authorization: authorization(), accept: 'text/plain, application/json' },
  });
  if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => null));
  return response.text();
}
