import { parseArgs } from 'node:util';

export const ALL_SYSTEMS = [
  'countersign-rest',
  'countersign-signal',
  'langgraph',
  'mastra',
  'openai-agents',
  'temporal-openai-agents',
] as const;
export type SystemName = (typeof ALL_SYSTEMS)[number];

export interface BenchArgs {
  systems: SystemName[];
  /** Sequential runs per system. */
  runs: number;
  /** Sequential runs first thrown away, so JIT warm-up and bundling do not count. */
  warmup: number;
  /** Sizes of the "N paused at once, then all approved" phase. */
  paused: number[];
  /** Requests in flight at once while starting or approving many runs. */
  inFlight: number;
  /** One more batch of the largest size, approved after a worker restart emptied its cache. */
  evict: boolean;
  /** Only that batch: the cold path at a size where measuring the warm one first doubles the time. */
  evictedOnly: boolean;
  floorRuns: number;
  /** Seconds an inbox stream stays open over each paused batch, its cost measured; 0 skips it. */
  inboxSeconds: number;
  /** The Temporal dev server's settings: `npm start`'s (`one-machine`) or the server's `defaults`. */
  server: 'one-machine' | 'defaults';
  outDir: string;
}

const USAGE = `usage: npm run bench -- [--systems a,b] [--runs N] [--warmup N] [--paused 200,1000]
                      [--in-flight N] [--no-evict | --evicted-only] [--floor-runs N] [--inbox-seconds N]
                      [--server one-machine|defaults] [--out DIR]
systems: ${ALL_SYSTEMS.join(', ')}`;

function count(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number\n${USAGE}`);
  return n;
}

export function parseBenchArgs(argv: string[]): BenchArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      systems: { type: 'string', default: ALL_SYSTEMS.join(',') },
      runs: { type: 'string', default: '200' },
      warmup: { type: 'string', default: '10' },
      paused: { type: 'string', default: '200,1000' },
      'in-flight': { type: 'string', default: '50' },
      'no-evict': { type: 'boolean', default: false },
      'evicted-only': { type: 'boolean', default: false },
      'floor-runs': { type: 'string', default: '500' },
      'inbox-seconds': { type: 'string', default: '10' },
      server: { type: 'string', default: 'one-machine' },
      out: { type: 'string', default: 'bench/results' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const systems = values.systems.split(',').filter(Boolean);
  for (const s of systems) {
    if (!(ALL_SYSTEMS as readonly string[]).includes(s)) throw new Error(`unknown system ${s}\n${USAGE}`);
  }
  if (values.server !== 'one-machine' && values.server !== 'defaults')
    throw new Error(`--server must be one-machine or defaults\n${USAGE}`);
  if (values['no-evict'] && values['evicted-only'])
    throw new Error(`--no-evict and --evicted-only contradict each other\n${USAGE}`);
  return {
    systems: systems as SystemName[],
    runs: count(values.runs, 'runs'),
    warmup: count(values.warmup, 'warmup'),
    paused: values.paused
      .split(',')
      .filter(Boolean)
      .map((v) => count(v, 'paused')),
    inFlight: Math.max(1, count(values['in-flight'], 'in-flight')),
    evict: !values['no-evict'],
    evictedOnly: values['evicted-only'],
    floorRuns: count(values['floor-runs'], 'floor-runs'),
    inboxSeconds: count(values['inbox-seconds'], 'inbox-seconds'),
    server: values.server,
    outDir: values.out,
  };
}
