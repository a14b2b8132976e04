import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '../support/wait-for.js';

/** One call of a Slack Web API method, its arguments as Slack's client sent them (JSON fields parsed). */
export interface SlackCall {
  method: string;
  args: Record<string, unknown>;
  /** Whether the fake answered `ok: true`. */
  ok?: boolean;
  /** What the fake answered (a posted message's `ts`...). */
  answer?: Record<string, unknown>;
}

/** What was posted to a message's `response_url`. */
export interface SlackResponse {
  message: string;
  body: Record<string, unknown>;
}

export interface FakeSlackOptions {
  /** The bot token the app holds: a call with another is refused (`invalid_auth`). */
  token: string;
  /** Slack's members: id and email (users.lookupByEmail, users.info). */
  members: { id: string; email: string }[];
}

/**
 * A local stand-in for the Slack Web API methods Countersign calls (users.lookupByEmail,
 * users.info, conversations.open, chat.postMessage, chat.update, views.open), reached by the real
 * `@slack/web-api` client through its `slackApiUrl`, and for `response_url`s. Every call is kept.
 */
export interface FakeSlack {
  /** The Web API's base URL, for the `apiUrl` options. */
  apiUrl: string;
  calls: SlackCall[];
  responses: SlackResponse[];
  /** A `response_url` for a message of ours. */
  responseUrl(message: string): string;
  /**
   * The next `count` calls of `method` answer HTTP `status` (a Slack outage), or, with `error`,
   * Slack's refusal with that code.
   */
  failNext(method: string, count: number, status?: number, error?: string): void;
  /** Waits until `count` calls match. */
  waitForCalls(predicate: (call: SlackCall) => boolean, count?: number): Promise<SlackCall[]>;
  /** Waits until `count` responses went to this message's `response_url`. */
  waitForResponses(message: string, count?: number): Promise<SlackResponse[]>;
  close(): Promise<void>;
}

const JSON_FIELDS = new Set(['blocks', 'view']);

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeSlack(options: FakeSlackOptions): Promise<FakeSlack> {
  const calls: SlackCall[] = [];
  const responses: SlackResponse[] = [];
  const failures = new Map<string, { count: number; status: number; error?: string }>();
  /** The messages posted, as `<channel>/<ts>`: only those can be updated. */
  const messages = new Set<string>();
  let ts = 0;
  const server = createServer((req, res) => {
    void bodyOf(req).then((text) => {
      const call: SlackCall = { method: '', args: {} };
      const answer = (status: number, body: { ok: boolean; [key: string]: unknown }) => {
        call.ok = status === 200 && body.ok;
        call.answer = body;
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      const url = new URL(req.url ?? '/', 'http://fake');
      const response = /^\/response\/(.+)$/.exec(url.pathname);
      if (response) {
        responses.push({ message: decodeURIComponent(response[1]!), body: JSON.parse(text) });
        return answer(200, { ok: true });
      }
      const method = (call.method = /^\/api\/(.+)$/.exec(url.pathname)?.[1] ?? '');
      const args = call.args;
      for (const [key, value] of new URLSearchParams(text))
        args[key] = JSON_FIELDS.has(key) ? JSON.parse(value) : value;
      calls.push(call);
      const failure = failures.get(method);
      if (failure && failure.count > 0) {
        failure.count--;
        return answer(failure.status, { ok: false, ...(failure.error ? { error: failure.error } : {}) });
      }
      if (req.headers.authorization !== `Bearer ${options.token}`)
        return answer(200, { ok: false, error: 'invalid_auth' });
      const member = (find: (m: { id: string; email: string }) => boolean) => options.members.find(find);
      switch (method) {
        case 'users.lookupByEmail': {
          const found = member((m) => m.email === args.email);
          return answer(
            200,
            found ? { ok: true, user: { id: found.id } } : { ok: false, error: 'users_not_found' },
          );
        }
        case 'users.info': {
          const found = member((m) => m.id === args.user);
          return answer(
            200,
            found
              ? {
                  ok: true,
                  user: { id: found.id, deleted: false, is_bot: false, profile: { email: found.email } },
                }
              : { ok: false, error: 'user_not_found' },
          );
        }
        case 'conversations.open':
          return answer(200, { ok: true, channel: { id: `D-${String(args.users)}` } });
        case 'chat.postMessage': {
          const posted = `1700000000.${String(++ts).padStart(6, '0')}`;
          messages.add(`${String(args.channel)}/${posted}`);
          return answer(200, { ok: true, channel: args.channel, ts: posted });
        }
        case 'chat.update':
          return messages.has(`${String(args.channel)}/${String(args.ts)}`)
            ? answer(200, { ok: true, channel: args.channel, ts: args.ts })
            : answer(200, { ok: false, error: 'message_not_found' });
        case 'views.open':
          return answer(200, { ok: true, view: { id: `V${++ts}` } });
        default:
          return answer(200, { ok: false, error: 'unknown_method' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: `${base}/api/`,
    calls,
    responses,
    responseUrl: (message) => `${base}/response/${encodeURIComponent(message)}`,
    failNext(method, count, status = 500, error) {
      failures.set(method, { count, status, ...(error ? { error } : {}) });
    },
    waitForCalls: (predicate, count = 1) =>
      waitFor(async () => {
        const found = calls.filter(predicate);
        return found.length >= count ? found : undefined;
      }, `${count} Slack call(s)`),
    waitForResponses: (message, count = 1) =>
      waitFor(async () => {
        const found = responses.filter((r) => r.message === message);
        return found.length >= count ? found : undefined;
      }, `${count} response(s) to Slack message ${message}`),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * POSTs an interaction to the API as Slack does: `payload=<JSON>`, form-encoded, signed with the
 * signing secret over `v0:<timestamp>:<body>`. `timestamp` (seconds) and `secret` forge or age it.
 */
export async function sendInteraction(
  url: string,
  signingSecret: string,
  payload: unknown,
  forge: { timestamp?: number; secret?: string } = {},
): Promise<{ status: number; text: string }> {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = String(forge.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = `v0=${createHmac('sha256', forge.secret ?? signingSecret)
    .update(`v0:${timestamp}:${body}`)
    .digest('hex')}`;
  const response = await fetch(`${url}/slack/interactions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': signature,
    },
    body,
  });
  return { status: response.status, text: await response.text() };
}
