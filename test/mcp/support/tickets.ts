import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../../support/wait-for.js';

/** The test MCP server (tickets-server.ts), run with tsx like the tests themselves. */
export const TICKETS_SERVER = fileURLToPath(new URL('./tickets-server.ts', import.meta.url));
export const TSX_NODE_ARGS = ['--import', 'tsx'];

export interface ReceivedCall {
  tool: string;
  args: Record<string, unknown>;
  meta?: Record<string, unknown>;
  authorization?: string;
  pid: number;
}

/** The files a tickets server reads and writes: its call log, and its config (`{ without }`). */
export function ticketFiles(): { log: string; config: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'countersign-mcp-'));
  return { log: path.join(dir, 'calls.jsonl'), config: path.join(dir, 'config.json') };
}

/** Every call the server received, in order. */
export function receivedCalls(log: string): ReceivedCall[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ReceivedCall);
}

/** Waits until the server has received `count` calls of `tool`, and returns them. */
export function callsReceived(log: string, tool: string, count = 1): Promise<ReceivedCall[]> {
  return waitFor(async () => {
    const calls = receivedCalls(log).filter((c) => c.tool === tool);
    return calls.length >= count ? calls : undefined;
  }, `${count} call(s) of ${tool} to reach the MCP server`);
}

/** Kills the server process that received this call, as a crash would, and waits until it is gone. */
export async function killServerOf(received: ReceivedCall): Promise<void> {
  process.kill(received.pid, 'SIGKILL');
  await waitFor(async () => {
    try {
      process.kill(received.pid, 0);
      return undefined;
    } catch {
      return true;
    }
  }, `MCP server ${received.pid} to exit`);
}

export interface HttpTickets {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the tickets server over Streamable HTTP as a child process; `token` is the bearer token it takes. */
export async function startHttpTickets(env: Record<string, string>): Promise<HttpTickets> {
  const child = spawn(process.execPath, [...TSX_NODE_ARGS, TICKETS_SERVER, '--http'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const port = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += String(chunk);
      const listening = /listening (\d+)/.exec(out);
      if (listening) resolve(listening[1]!);
    });
    child.once('exit', (code) =>
      reject(new Error(`the HTTP tickets server exited (${code}) before listening`)),
    );
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    process: child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
