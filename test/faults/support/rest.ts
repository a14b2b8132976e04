import { setTimeout as sleep } from 'node:timers/promises';

export interface Reply<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

/** A bearer-token JSON client for the API under test. */
export class Rest {
  constructor(
    readonly baseUrl: string,
    readonly token: string,
  ) {}

  async send<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply<T>> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON (an HTML page, an empty body): the text is the body.
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  /**
   * Retries while the API (or what is behind it) is down or restarting: connection errors, 5xx,
   * and 503s, until `accept` likes the reply. The request must be safe to repeat.
   */
  async retry<T = unknown>(
    method: string,
    path: string,
    body: unknown,
    accept: (reply: Reply<T>) => boolean,
    options: { headers?: Record<string, string>; deadlineMs?: number } = {},
  ): Promise<Reply<T>> {
    const deadline = Date.now() + (options.deadlineMs ?? 240_000);
    let last: unknown;
    while (Date.now() < deadline) {
      try {
        const reply = await this.send<T>(method, path, body, options.headers);
        if (accept(reply)) return reply;
        last = `${reply.status} ${JSON.stringify(reply.body)}`;
      } catch (err) {
        last = err;
      }
      await sleep(100);
    }
    const detail = last instanceof Error ? last.message : String(last);
    throw new Error(`${method} ${path} never succeeded; last: ${detail.slice(0, 300)}`);
  }
}
