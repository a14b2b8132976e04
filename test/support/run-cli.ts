import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/countersign.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `countersign ...` as a user would, in a process of its own, with `env` as its environment;
 * `input` is piped to its stdin (`printf %s "$PW" | countersign ...`), which is empty otherwise.
 */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  options: { input?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const command = [BIN, ...args];
    const child =
      options.input === undefined
        ? spawn(process.execPath, command, { env, stdio: ['ignore', 'pipe', 'pipe'] })
        : spawn(process.execPath, command, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    if (child.stdin) {
      // The CLI may exit without reading it all (it reads one line): that is no error here.
      child.stdin.on('error', () => {});
      child.stdin.end(options.input);
    }
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
