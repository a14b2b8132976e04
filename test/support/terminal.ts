import { spawn } from 'node:child_process';
import { BIN } from './run-cli.js';

/** `text` matched as it is, inside a RegExp. */
export const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Runs its arguments on a pseudo-terminal of its own (Python's `pty`, as Python 3 is already needed
 * to install): their stdin, stdout and stderr are a real terminal, which echoes what is typed
 * unless the program turns echo off. Our stdin is typed into it; all it shows comes on our stdout.
 */
const ON_A_PTY = 'import os, pty, sys; sys.exit(os.waitstatus_to_exitcode(pty.spawn(sys.argv[1:])))';

/**
 * A `countersign` process (`watch`, mostly), read as a person reads a terminal: from where they
 * last looked. Through pipes by default; `pty: true` runs it on a pseudo-terminal, where `screen`
 * is everything the terminal showed, echoed keys included, and `press` types keys as they are.
 */
export class Terminal {
  private output = '';
  private read = 0;
  private stderr = '';
  private readonly waiters = new Set<() => void>();
  readonly exited: Promise<number | null>;
  private readonly child;
  private readonly pty: boolean;

  constructor(args: string[], env: NodeJS.ProcessEnv, options: { pty?: boolean } = {}) {
    this.pty = options.pty === true;
    const command = [process.execPath, BIN, ...args];
    this.child = this.pty
      ? spawn(process.env.PYTHON ?? 'python3', ['-c', ON_A_PTY, ...command], {
          env,
          stdio: ['pipe', 'pipe', 'pipe'],
        })
      : spawn(command[0]!, command.slice(1), { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (d: Buffer) => {
      this.output += d.toString();
      this.waiters.forEach((wake) => wake());
    });
    this.child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((resolve) => this.child.on('close', resolve));
  }

  /**
   * Waits for `pattern` in the output not read yet, and reads up to its end; fails at once if
   * `failOn` shows up first.
   */
  async until(pattern: RegExp, failOn?: RegExp): Promise<RegExpExecArray> {
    for (;;) {
      const unread = this.output.slice(this.read);
      const match = pattern.exec(unread);
      const failed = failOn?.exec(unread);
      if (failed && (!match || failed.index < match.index)) {
        throw new Error(`watch printed ${failOn} before ${pattern}:\n${unread}`);
      }
      if (match) {
        this.read += match.index + match[0].length;
        return match;
      }
      const closed = await new Promise<boolean>((resolve) => {
        const wake = () => {
          this.waiters.delete(wake);
          resolve(false);
        };
        this.waiters.add(wake);
        void this.exited.then(() => resolve(true));
      });
      if (closed && !pattern.test(this.output.slice(this.read))) {
        throw new Error(`watch exited before printing ${pattern}:\n${this.output}\n${this.stderr}`);
      }
    }
  }

  type(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** Types keys as they are: no Enter unless they hold one (`\r`), control keys as `\u0003`... */
  press(keys: string): void {
    this.child.stdin.write(keys);
  }

  /** Everything the process printed so far (on a pseudo-terminal: all the terminal showed). */
  get screen(): string {
    return this.output;
  }

  /**
   * Decides `trackingId` when the watcher shows it, skipping anything else it shows first (other
   * test files may share a real Temporal cluster).
   */
  async decide(trackingId: string, key: string, reason?: string): Promise<string> {
    const card = await this.show(trackingId);
    this.type(key);
    if (reason !== undefined) {
      await this.until(/Reason[^\n]*> /);
      this.type(reason);
    }
    await this.until(new RegExp(`${literal(trackingId)}: \\w+`));
    return card;
  }

  /** Waits until the watcher shows `trackingId` and asks for a decision, skipping anything else. */
  async show(trackingId: string): Promise<string> {
    for (;;) {
      const card = await this.until(/Approval (\S+) [\s\S]*?Decide: [^\n]*> /);
      if (card[1] === trackingId) return card[0];
      this.type('k');
    }
  }

  async close(): Promise<number | null> {
    // A terminal's end of input is Ctrl-D at the start of a line.
    if (this.pty) this.child.stdin.write('\u0004');
    this.child.stdin.end();
    return this.exited;
  }

  /** Ends the process (on a pseudo-terminal, hanging up on it), if it is still running. */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill();
  }

  get errors(): string {
    return this.stderr;
  }
}
