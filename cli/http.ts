import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CliError } from '../errors/cli-error.js';
import { INSTANCE_FILE, readInstanceFile } from './instance-file.js';

export { CliError };

export interface Connection {
  url: string;
  token?: string;
  /** Where the URL came from, when not from --url or COUNTERSIGN_URL. */
  urlFrom?: string;
}

export const DEFAULT_URL = 'http://127.0.0.1:3000';

const dataDir = (env: NodeJS.ProcessEnv) => path.resolve(env.COUNTERSIGN_DATA_DIR ?? '.countersign');

/**
 * The API's URL from a flag or COUNTERSIGN_URL, or else the one the instance `npm start` runs
 * over the local data dir wrote down (whatever its PORT), or else the default port. `from` names
 * where it came from, for an error that cannot reach it.
 */
export function resolveUrl(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { url: string; from?: string } {
  if (flag) return { url: flag };
  const instance = readInstanceFile(dataDir(env));
  if (instance) return { url: instance.url, from: path.join(dataDir(env), INSTANCE_FILE) };
  return { url: DEFAULT_URL };
}

/**
 * The token from a flag, the environment, or else the admin token `npm start` writes into the
 * local data dir, so the CLI works on the machine running Countersign with no setup.
 */
export function resolveToken(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (flag) return flag;
  if (env.COUNTERSIGN_TOKEN) return env.COUNTERSIGN_TOKEN;
  const file = path.join(dataDir(env), 'admin-token');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
}

type ErrorBody = {
  error?: { message?: string; code?: string; fields?: { path: string; message: string }[] };
};

/** A thin client for the REST API: JSON in, JSON out, every failure turned into a CliError. */
export class Api {
  constructor(private readonly connection: Connection) {}

  get baseUrl(): string {
    return this.connection.url.replace(/\/+$/, '');
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json', ...extra };
    if (this.connection.token) headers.authorization = `Bearer ${this.connection.token}`;
    return headers;
  }

  async fetch(route: string, init: RequestInit = {}): Promise<Response> {
    const url = `${this.baseUrl}${route}`;
    try {
      return await fetch(url, {
        ...init,
        headers: { ...this.headers(), ...(init.headers as Record<string, string>) },
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const from = this.connection.urlFrom ? `, as ${this.connection.urlFrom} says` : '';
      throw new CliError(
        `cannot reach Countersign at ${this.baseUrl}${from} (${cause?.code ?? cause?.message ?? (error as Error).message}). Is it running? Set --url or COUNTERSIGN_URL.`,
      );
    }
  }

  async request<T>(
    method: string,
    route: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: T }> {
    const response = await this.fetch(route, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!response.ok) throw httpError(response.status, parsed as ErrorBody | undefined, text);
    return { status: response.status, body: parsed as T };
  }

  get<T>(route: string): Promise<T> {
    return this.request<T>('GET', route).then((r) => r.body);
  }
}

function httpError(status: number, body: ErrorBody | undefined, text: string): CliError {
  const message = body?.error?.message ?? (text.trim().slice(0, 200) || 'no details');
  const hint =
    status === 401
      ? ' Pass a token with --token or COUNTERSIGN_TOKEN (npm start prints the admin token).'
      : '';
  const fields = (body?.error?.fields ?? []).map((f) => `  ${f.path || '(body)'}: ${f.message}`);
  return new CliError(`HTTP ${status}: ${message}.${hint}`, fields);
}
