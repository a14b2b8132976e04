import { spawn } from 'node:child_process';
import { BIN } from './run-cli.js';

/** `text` matched as it is, inside a RegExp. */
export const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A `countersign watch` process, read as a person reads a terminal: from where they last looked. */
export class Terminal {
  private output = '';
  private read = 0;
  private stderr = '';
  private readonly waiters = new Set<() => void>();
  readonly exited: Promise<number | null>;
  private readonly child;

  constructor(args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, [BIN, ...args], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
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
    this.child.stdin.end();
    return this.exited;
  }

  get errors(): string {
    return this.stderr;
  }
}
