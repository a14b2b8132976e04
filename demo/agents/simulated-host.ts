import { createHash } from 'node:crypto';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { openDemoDatabase } from './sqlite.js';

/**
 * A pretend Linux box for the ops agent. Commands are interpreted here against a file table and
 * a service table in SQLite; nothing ever reaches a real shell, which is the point of the demo.
 */
export const HOSTNAME = 'web-1';

const SEED_FILES: Record<string, string> = {
  '/etc/hostname': `${HOSTNAME}\n`,
  '/etc/os-release': 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n',
  '/srv/app/config.yaml': 'port: 8080\nworkers: 4\ndatabase: postgres://db.internal/app\n',
  '/srv/app/release': 'v2.14.1\n',
  '/var/log/app/app.log':
    '2026-11-22T01:00:00Z INFO  started v2.14.1\n2026-11-22T01:02:13Z WARN  slow query (2.4s) on /api/orders\n2026-11-22T01:05:40Z ERROR worker queue backlog 1200 jobs\n',
  '/var/log/app/app.log.1': 'rotated log, 412 MB\n',
  '/var/log/app/app.log.2': 'rotated log, 388 MB\n',
  '/var/log/nginx/access.log':
    '10.0.0.7 - - "GET /healthz HTTP/1.1" 200\n10.0.0.9 - - "GET /api/orders HTTP/1.1" 504\n',
};

/** Rotated logs are big on the simulated disk, so cleaning them up frees visible space. */
const SIZE_MB: Record<string, number> = { '/var/log/app/app.log.1': 412, '/var/log/app/app.log.2': 388 };
const DISK_MB = 20_480;
const BASE_USED_MB = 17_900;

const SEED_SERVICES: Record<string, string> = {
  nginx: 'active',
  app: 'active',
  worker: 'failed',
  postgresql: 'active',
};

const SCHEMA = `
CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, content TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS services (name TEXT PRIMARY KEY, state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS executions (idempotency_key TEXT PRIMARY KEY, result TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS vms (id TEXT PRIMARY KEY, size TEXT NOT NULL, region TEXT NOT NULL, ip TEXT NOT NULL);
`;

export type ShellResult = {
  host: string;
  simulated: true;
  command: string;
  cwd: string;
  exitCode: number;
  stdout: string;
  stderr: string;
};

export const VM_SIZES = { small: 0.02, medium: 0.05, large: 0.1, xlarge: 0.2 } as const;
export type VmSize = keyof typeof VM_SIZES;
export type Vm = {
  id: string;
  size: string;
  region: string;
  ip: string;
  status: 'running';
  hourlyCost: number;
};

type Output = { exitCode: number; stdout?: string; stderr?: string };

export class SimulatedHost {
  private readonly db: Database.Database;

  constructor(file: string) {
    this.db = openDemoDatabase(file, SCHEMA);
    const file_ = this.db.prepare('INSERT OR IGNORE INTO files VALUES (?, ?)');
    const service = this.db.prepare('INSERT OR IGNORE INTO services VALUES (?, ?)');
    this.db.transaction(() => {
      for (const [p, content] of Object.entries(SEED_FILES)) file_.run(p, content);
      for (const [name, state] of Object.entries(SEED_SERVICES)) service.run(name, state);
    })();
  }

  /** Runs one command at most once per idempotency key; a retry gets the first result. */
  run(key: string, command: string, cwd: string, timeoutSeconds: number): ShellResult {
    return this.once(key, () => {
      const out = this.interpret(command.trim(), cwd, timeoutSeconds);
      return {
        host: `${HOSTNAME} (simulated)`,
        simulated: true as const,
        command,
        cwd,
        exitCode: out.exitCode,
        stdout: out.stdout ?? '',
        stderr: out.stderr ?? '',
      };
    });
  }

  provision(key: string, size: VmSize, region: string): { simulated: true; vm: Vm } {
    return this.once(key, () => {
      const hash = createHash('sha256').update(key).digest();
      const vm: Vm = {
        id: `vm-${hash.subarray(0, 4).toString('hex')}`,
        size,
        region,
        ip: `10.${hash[4]}.${hash[5]}.${(hash[6]! % 250) + 2}`,
        status: 'running',
        hourlyCost: VM_SIZES[size],
      };
      this.db.prepare('INSERT INTO vms VALUES (?, ?, ?, ?)').run(vm.id, size, region, vm.ip);
      return { simulated: true as const, vm };
    });
  }

  service(name: string): string | undefined {
    const row = this.db.prepare('SELECT state FROM services WHERE name = ?').get(name) as
      | { state: string }
      | undefined;
    return row?.state;
  }

  exists(p: string): boolean {
    return this.db.prepare('SELECT 1 FROM files WHERE path = ?').get(p) !== undefined;
  }

  private once<T>(key: string, work: () => T): T {
    return this.db
      .transaction((): T => {
        const row = this.db.prepare('SELECT result FROM executions WHERE idempotency_key = ?').get(key) as
          | { result: string }
          | undefined;
        if (row) return JSON.parse(row.result) as T;
        const result = work();
        this.db.prepare('INSERT INTO executions VALUES (?, ?)').run(key, JSON.stringify(result));
        return result;
      })
      .immediate();
  }

  private paths(): string[] {
    return (this.db.prepare('SELECT path FROM files ORDER BY path').all() as { path: string }[]).map(
      (r) => r.path,
    );
  }

  private isDir(p: string): boolean {
    return p === '/' || this.paths().some((f) => f.startsWith(`${p}/`));
  }

  private read(p: string): string | undefined {
    const row = this.db.prepare('SELECT content FROM files WHERE path = ?').get(p) as
      | { content: string }
      | undefined;
    return row?.content;
  }

  private interpret(command: string, cwd: string, timeoutSeconds: number): Output {
    if (!cwd.startsWith('/') || !this.isDir(path.posix.normalize(cwd))) {
      return { exitCode: 1, stderr: `cd: ${cwd}: No such directory` };
    }
    if (/[;&|<>`$()\\]/.test(command)) {
      return {
        exitCode: 2,
        stderr: 'the simulated host runs one plain command at a time (no pipes, redirects or substitutions)',
      };
    }
    const [name = '', ...args] = command.split(/\s+/);
    const flags = args.filter((a) => a.startsWith('-'));
    const operands = args.filter((a) => !a.startsWith('-')).map((a) => path.posix.resolve(cwd, a));
    switch (name) {
      case 'pwd':
        return { exitCode: 0, stdout: `${cwd}\n` };
      case 'echo':
        return { exitCode: 0, stdout: `${args.join(' ')}\n` };
      case 'hostname':
        return { exitCode: 0, stdout: `${HOSTNAME}\n` };
      case 'whoami':
        return { exitCode: 0, stdout: 'ops\n' };
      case 'uptime':
        return {
          exitCode: 0,
          stdout: ' 01:41:00 up 42 days,  3:07,  1 user,  load average: 0.42, 0.51, 0.48\n',
        };
      case 'df':
        return { exitCode: 0, stdout: this.df() };
      case 'free':
        return { exitCode: 0, stdout: '       total   used   free\nMem:    7964   5120   2844\n' };
      case 'ls':
        return this.ls(operands[0] ?? cwd);
      case 'cat':
      case 'head':
      case 'tail':
        return this.cat(name, args, cwd);
      case 'ps':
        return { exitCode: 0, stdout: this.ps() };
      case 'systemctl':
        return this.systemctl(args);
      case 'rm':
        return this.rm(
          operands,
          flags.some((f) => f.includes('f')),
        );
      case 'sleep': {
        const seconds = Number(args[0]);
        if (!Number.isFinite(seconds)) return { exitCode: 1, stderr: 'sleep: invalid time interval\n' };
        return seconds > timeoutSeconds
          ? { exitCode: 124, stderr: `timed out after ${timeoutSeconds}s\n` }
          : { exitCode: 0 };
      }
      default:
        return { exitCode: 127, stderr: `${name}: command not found\n` };
    }
  }

  private df(): string {
    const freed = Object.entries(SIZE_MB).reduce((sum, [p, mb]) => sum + (this.exists(p) ? 0 : mb), 0);
    const used = BASE_USED_MB - freed;
    const gb = (mb: number) => `${(mb / 1024).toFixed(1)}G`;
    const pct = Math.round((used / DISK_MB) * 100);
    return `Filesystem  Size  Used Avail Use% Mounted on\n/dev/vda1   ${gb(DISK_MB)} ${gb(used)} ${gb(DISK_MB - used)}  ${pct}% /\n`;
  }

  private ls(target: string): Output {
    if (this.exists(target)) return { exitCode: 0, stdout: `${path.posix.basename(target)}\n` };
    if (!this.isDir(target))
      return { exitCode: 2, stderr: `ls: cannot access '${target}': No such file or directory\n` };
    const prefix = target === '/' ? '/' : `${target}/`;
    const names = new Set(
      this.paths()
        .filter((p) => p.startsWith(prefix))
        .map((p) => p.slice(prefix.length).split('/')[0]!),
    );
    return {
      exitCode: 0,
      stdout: [...names]
        .sort()
        .map((n) => `${n}\n`)
        .join(''),
    };
  }

  private cat(name: string, args: string[], cwd: string): Output {
    let lines = Infinity;
    const files: string[] = [];
    for (let i = 0; i < args.length; i++) {
      if (args[i] === '-n') lines = Number(args[++i]);
      else files.push(path.posix.resolve(cwd, args[i]!));
    }
    let stdout = '';
    for (const f of files) {
      const content = this.read(f);
      if (content === undefined)
        return { exitCode: 1, stdout, stderr: `${name}: ${f}: No such file or directory\n` };
      const all = content.replace(/\n$/, '').split('\n');
      const count = lines === Infinity ? 10 : lines;
      const picked = name === 'cat' ? all : name === 'head' ? all.slice(0, count) : all.slice(-count);
      stdout += picked.map((l) => `${l}\n`).join('');
    }
    return { exitCode: 0, stdout };
  }

  private ps(): string {
    const rows = this.db.prepare("SELECT name FROM services WHERE state = 'active' ORDER BY name").all() as {
      name: string;
    }[];
    return (
      ['  PID CMD', ...rows.map((r, i) => `${String(1000 + i * 17).padStart(5)} ${r.name}`)].join('\n') + '\n'
    );
  }

  private systemctl(args: string[]): Output {
    const [verb, unit] = args;
    const name = unit?.replace(/\.service$/, '');
    if (!verb || !name)
      return { exitCode: 1, stderr: 'usage: systemctl status|start|stop|restart <service>\n' };
    const state = this.service(name);
    if (state === undefined) return { exitCode: 5, stderr: `Unit ${name}.service could not be found.\n` };
    const set = (next: string) =>
      this.db.prepare('UPDATE services SET state = ? WHERE name = ?').run(next, name);
    switch (verb) {
      case 'status':
        return { exitCode: state === 'active' ? 0 : 3, stdout: `● ${name}.service\n     Active: ${state}\n` };
      case 'start':
      case 'restart':
        set('active');
        return { exitCode: 0 };
      case 'stop':
        set('inactive');
        return { exitCode: 0 };
      default:
        return { exitCode: 1, stderr: `systemctl: unknown command ${verb}\n` };
    }
  }

  private rm(targets: string[], force: boolean): Output {
    const all = this.paths();
    let stderr = '';
    const del = this.db.prepare('DELETE FROM files WHERE path = ?');
    for (const target of targets) {
      // Only a trailing `*` in the last segment is expanded, as a shell glob would.
      const matches = target.includes('*')
        ? all.filter(
            (p) =>
              path.posix.dirname(p) === path.posix.dirname(target) &&
              globMatch(path.posix.basename(target), path.posix.basename(p)),
          )
        : all.filter((p) => p === target || p.startsWith(`${target}/`));
      if (matches.length === 0 && !force)
        stderr += `rm: cannot remove '${target}': No such file or directory\n`;
      for (const m of matches) del.run(m);
    }
    return { exitCode: stderr ? 1 : 0, stderr };
  }
}

function globMatch(pattern: string, name: string): boolean {
  const re = new RegExp(
    `^${pattern
      .split('*')
      .map((s) => s.replace(/[.+?^{}[\]]/g, '\\$&'))
      .join('.*')}$`,
  );
  return re.test(name);
}
