/**
 * Where a Go server's CPU goes, from `perf record -g` samples of a stripped Go binary (the Temporal
 * CLI): perf cannot name its functions, but Go keeps its own line table in the binary, which
 * `go tool addr2line` reads. Each sample's call chain is then put in one category by a fixed list
 * of rules over its function names.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readSync } from 'node:fs';

/** A frame outside the binary that `perf script` names by its file: the kernel's. */
export const KERNEL = '[kernel]';

/** One frame of a sample: an offset into the binary's file, or the name of what it is outside it. */
export type Frame = { offset: number } | { outside: string };

/**
 * The call chains in `perf script -F ip,dso` output, leaf first. Addresses in `binary` are offsets
 * into the file (perf maps them back from the running process); any other frame is named by its
 * file, the kernel's as KERNEL.
 */
export function parsePerfScript(text: string, binary: string): Frame[][] {
  const samples: Frame[][] = [];
  let chain: Frame[] = [];
  for (const line of text.split('\n')) {
    const match = /^\s*([0-9a-f]+)\s+\((.*)\)\s*$/.exec(line);
    if (match) {
      const [, ip, dso] = match as unknown as [string, string, string];
      if (dso === binary) chain.push({ offset: parseInt(ip, 16) });
      else chain.push({ outside: dso.startsWith('[kernel') ? KERNEL : dso });
    } else if (line.trim() === '' && chain.length > 0) {
      samples.push(chain);
      chain = [];
    }
  }
  if (chain.length > 0) samples.push(chain);
  return samples;
}

/**
 * What to add to a file offset in the binary's code to get its address as the binary's line table
 * knows it: the executable segment's address minus its file offset (0x400000 for Go on amd64),
 * read from the ELF program headers.
 */
export function codeSegmentBias(binary: string): number {
  const header = Buffer.alloc(4096);
  const fd = openSync(binary, 'r');
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  // A 64-bit little-endian ELF file: the only kind the Temporal CLI is released as on Linux.
  if (header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2 || header[5] !== 1)
    throw new Error(`${binary} is not a 64-bit little-endian ELF file`);
  const phoff = Number(header.readBigUInt64LE(0x20));
  const phentsize = header.readUInt16LE(0x36);
  const phnum = header.readUInt16LE(0x38);
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    const type = header.readUInt32LE(at);
    const flags = header.readUInt32LE(at + 4);
    const PT_LOAD = 1;
    const PF_X = 1;
    if (type === PT_LOAD && flags & PF_X)
      return Number(header.readBigUInt64LE(at + 16) - header.readBigUInt64LE(at + 8));
  }
  throw new Error(`${binary} has no executable segment`);
}

/** Runs a command to its end with `input` on its stdin; its stdout, or an error with its stderr. */
export function run(command: string, args: string[], input = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code}: ${Buffer.concat(err)}`));
    });
    child.stdin.end(input);
  });
}

/** The function at each address, all resolved in one `go tool addr2line` call. */
export async function functionNames(
  binary: string,
  addresses: readonly number[],
): Promise<Map<number, string>> {
  const input = addresses.map((a) => `0x${a.toString(16)}\n`).join('');
  // Two lines an address: the function, then file:line.
  const lines = (await run('go', ['tool', 'addr2line', binary], input)).split('\n');
  return new Map(addresses.map((a, i) => [a, lines[2 * i] ?? '?']));
}

interface Rule {
  pattern: RegExp;
  /** The category, from the pattern's first group where it has one. */
  category: (group: string) => string;
}

/** A queue's task executor: first by the kind of task (its method's name), then as a whole. */
const executor = (queue: string, type: RegExp, method: RegExp): Rule[] => [
  { pattern: new RegExp(`${type.source}\\)\\.${method.source}$`), category: (x) => `${queue}: ${x}` },
  { pattern: new RegExp(`${type.source}\\)\\.`), category: () => `${queue}: executor` },
];

/**
 * The categories, in priority order: the first rule that matches any frame of a chain names it.
 * The work a task or request does comes first, so that its GC assists, locks and writes count as
 * its own; then what runs on its own (the background GC, the gRPC connections, the queues' readers,
 * the scheduler, a goroutine's stack growing: its unwinding stops there, on the scheduler's stack).
 */
export const RULES: readonly Rule[] = [
  ...executor('visibility', /\(\*visibilityQueueTaskExecutor/, /process(\w+)/),
  ...executor('transfer', /\(\*transferQueue(?:Active|Standby)TaskExecutor/, /process(\w+)/),
  ...executor('timer', /\(\*timerQueue(?:Active|Standby)TaskExecutor/, /execute(\w+)Task/),
  { pattern: /\._HistoryService_(\w+?)_Handler/, category: (x) => `history: ${x}` },
  { pattern: /\._MatchingService_(\w+?)_Handler/, category: (x) => `matching: ${x}` },
  { pattern: /\._WorkflowService_(\w+?)_Handler/, category: (x) => `frontend: ${x}` },
  { pattern: /\._AdminService_(\w+?)_Handler/, category: (x) => `admin: ${x}` },
  { pattern: /^runtime\.gcBgMarkWorker$/, category: () => 'GC (background)' },
  { pattern: /grpc\/internal\/transport\./, category: () => 'gRPC transport' },
  { pattern: /\/queues\./, category: () => 'queue machinery' },
  {
    pattern: /^runtime\.(?:mstart|mcall|schedule|findRunnable|park_m|sysmon)$/,
    category: () => 'Go scheduler',
  },
  { pattern: /^runtime\.morestack$/, category: () => 'stack growth' },
];

export const OTHER = 'other';

/**
 * The category of one call chain of function names (leaf first, KERNEL for a kernel frame). Within
 * a rule the outermost matching frame names it: the task or request that the inner calls serve.
 */
export function classify(chain: readonly string[]): string {
  for (const rule of RULES) {
    for (let i = chain.length - 1; i >= 0; i--) {
      const match = rule.pattern.exec(chain[i]!);
      if (match) return rule.category(match[1] ?? '');
    }
  }
  return OTHER;
}

export interface Category {
  name: string;
  samples: number;
  /** Of them, those whose leaf is in the kernel: system calls (writes, fsync) and page faults. */
  kernel: number;
}

export interface Profile {
  samples: number;
  /** Most samples first. */
  categories: Category[];
}

/** Counts the chains by category, and the kernel leaves in each. */
export function tally(chains: readonly (readonly string[])[]): Profile {
  const byName = new Map<string, Category>();
  for (const chain of chains) {
    const name = classify(chain);
    const category = byName.get(name) ?? { name, samples: 0, kernel: 0 };
    category.samples++;
    if (chain[0] === KERNEL) category.kernel++;
    byName.set(name, category);
  }
  return {
    samples: chains.length,
    categories: [...byName.values()].sort((a, b) => b.samples - a.samples),
  };
}

/** Categories under `minShare` of the samples, folded into one "rest" at the end. */
export function foldSmall(profile: Profile, minShare: number): Category[] {
  const kept = profile.categories.filter((c) => c.samples >= minShare * profile.samples);
  const small = profile.categories.filter((c) => !kept.includes(c));
  if (small.length === 0) return kept;
  const rest = small.reduce(
    (sum, c) => ({ ...sum, samples: sum.samples + c.samples, kernel: sum.kernel + c.kernel }),
    {
      name: 'rest',
      samples: 0,
      kernel: 0,
    },
  );
  return [...kept, rest];
}

/** The profile of the samples `perf record -g` wrote to `file` from a process running `binary`. */
export async function profileGoBinary(file: string, binary: string): Promise<Profile> {
  const samples = parsePerfScript(await run('perf', ['script', '-i', file, '-F', 'ip,dso']), binary);
  const bias = codeSegmentBias(binary);
  const addresses = [
    ...new Set(samples.flatMap((chain) => chain.flatMap((f) => ('offset' in f ? [f.offset + bias] : [])))),
  ];
  // perf names a file by the path the process mapped it from: another path would sort nothing.
  if (samples.length > 0 && addresses.length === 0) throw new Error(`perf named no frame in ${binary}`);
  const names = await functionNames(binary, addresses);
  return tally(
    samples.map((chain) => chain.map((f) => ('offset' in f ? names.get(f.offset + bias)! : f.outside))),
  );
}
