// How the scenarios reach the team's service: its own login, then the mounted API with the session
// cookie, as a browser would.
import assert from 'node:assert/strict';

/** Signs in through the service's own login: the session cookie it sets. */
export async function signIn(origin: string, user: string): Promise<string> {
  const response = await fetch(`${origin}/login`, {
    method: 'POST',
    body: new URLSearchParams({ user }),
    redirect: 'manual',
  });
  assert.equal(response.status, 303);
  return response.headers.get('set-cookie')!.split(';')[0]!;
}

/** A JSON request to the mounted API at `base`, as the user whose cookie it is. */
export async function call(
  base: string,
  cookie: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  headers = {},
) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(cookie ? { cookie } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

export async function until<T>(what: string, read: () => Promise<T | undefined>, tries = 600): Promise<T> {
  for (let tried = 0; tried < tries; tried++) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}
