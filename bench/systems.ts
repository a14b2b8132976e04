import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild, type Child } from '../test/faults/support/child.js';
import { ProcessStack, type Role } from '../test/faults/support/process-stack.js';
import { ONE_MACHINE_SERVER } from '../temporal/one-machine.js';
import type { BenchArgs, SystemName } from './lib/args.js';
import { persistedBytes } from './lib/disk.js';

export interface SystemInstance {
  name: SystemName;
  driver: Child;
  /** Every process the system runs, the driver (its client side) included. */
  processes(): { label: string; pid: number }[];
  /** Bytes the system keeps on disk. */
  persistedBytes(): number;
  /** Empties the worker's workflow cache by restarting it; absent where nothing is cached. */
  evict?(): Promise<void>;
  /** A full garbage collection in the processes that can be asked for one. */
  collectGarbage?(): Promise<void>;
  stop(): Promise<void>;
}

interface Context {
  modelUrl: string;
  workDir: string;
  server: BenchArgs['server'];
}

/** The Temporal dev server's settings for a system that runs one. */
const serverSettings = (ctx: Context) => (ctx.server === 'one-machine' ? ONE_MACHINE_SERVER : undefined);

const BENCH_AGENTS = fileURLToPath(new URL('./countersign/agents.ts', import.meta.url));

const token = () => randomBytes(24).toString('base64url');

async function inProcessPeer(
  name: SystemName,
  file: string,
  ctx: Context,
  dir: string,
  env: Record<string, string> = {},
): Promise<SystemInstance> {
  const driver = await startChild({
    label: name,
    file,
    env: { BENCH_MODEL_URL: ctx.modelUrl, BENCH_DATA_DIR: dir, ...env },
    ready: 'ipc',
  });
  return {
    name,
    driver,
    processes: () => [{ label: name, pid: driver.pid }],
    persistedBytes: () => persistedBytes(dir),
    stop: () => driver.kill(),
  };
}

function stackProcesses(stack: ProcessStack, roles: readonly Role[]) {
  return roles.map((role) => ({ label: role, pid: stack.pid(role) }));
}

async function countersign(name: SystemName, ctx: Context, dir: string): Promise<SystemInstance> {
  const viaApi = name === 'countersign-rest';
  const roles: Role[] = viaApi ? ['temporal', 'worker', 'api'] : ['temporal', 'worker'];
  const requesterToken = token();
  const reviewerToken = token();
  const stack = await ProcessStack.start({
    dataDir: dir,
    agentsModule: BENCH_AGENTS,
    modelUrl: ctx.modelUrl,
    serverSettings: serverSettings(ctx),
    approvers: [
      { id: 'bench-requester', roles: ['requester'], token: requesterToken },
      { id: 'bench-reviewer', roles: ['admin'], token: reviewerToken },
    ],
    roles,
  });
  const driver = await startChild({
    label: `${name} client`,
    file: viaApi ? 'bench/countersign/driver-rest.ts' : 'bench/countersign/driver-signal.ts',
    env: {
      TEMPORAL_ADDRESS: stack.temporalAddress,
      BENCH_API_URL: stack.apiUrl,
      BENCH_REQUESTER_TOKEN: requesterToken,
      BENCH_REVIEWER_TOKEN: reviewerToken,
    },
    ready: 'ipc',
  });
  return {
    name,
    driver,
    processes: () => [...stackProcesses(stack, roles), { label: 'client', pid: driver.pid }],
    persistedBytes: () => persistedBytes(path.dirname(stack.dbPath)),
    evict: () => stack.restart('worker'),
    collectGarbage: () => stack.collectGarbage(),
    async stop() {
      await driver.kill();
      await stack.stop();
    },
  };
}

async function temporalOpenAiAgents(ctx: Context, dir: string): Promise<SystemInstance> {
  // The Temporal dev server runs alone; the peer brings its own worker, on the Temporal SDK it pins.
  const stack = await ProcessStack.start({
    dataDir: dir,
    agentsModule: BENCH_AGENTS,
    modelUrl: ctx.modelUrl,
    serverSettings: serverSettings(ctx),
    approvers: [{ id: 'unused', roles: ['admin'], token: token() }],
    roles: ['temporal'],
  });
  const env = { TEMPORAL_ADDRESS: stack.temporalAddress, BENCH_MODEL_URL: ctx.modelUrl };
  const workerSpec = {
    label: 'openai-agents worker',
    file: 'bench/peers/temporal-agents/worker.ts',
    env,
    ready: 'ipc' as const,
    timeoutMs: 120_000,
  };
  let worker = await startChild(workerSpec);
  const driver = await startChild({
    label: 'openai-agents client',
    file: 'bench/peers/temporal-agents/driver.ts',
    env,
    ready: 'ipc',
  });
  return {
    name: 'temporal-openai-agents',
    driver,
    processes: () => [
      { label: 'temporal', pid: stack.pid('temporal') },
      { label: 'worker', pid: worker.pid },
      { label: 'client', pid: driver.pid },
    ],
    persistedBytes: () => persistedBytes(dir),
    async evict() {
      await worker.kill();
      worker = await startChild(workerSpec);
    },
    async stop() {
      await driver.kill();
      await worker.kill();
      await stack.stop();
    },
  };
}

export async function startSystem(name: SystemName, ctx: Context): Promise<SystemInstance> {
  const dir = path.join(ctx.workDir, name);
  mkdirSync(dir, { recursive: true });
  switch (name) {
    case 'langgraph':
      return inProcessPeer(name, 'bench/peers/langgraph.ts', ctx, dir);
    case 'openai-agents':
      return inProcessPeer(name, 'bench/peers/openai-agents.ts', ctx, dir);
    case 'mastra':
      // Mastra reports usage to its own telemetry service unless told not to.
      return inProcessPeer(name, 'bench/peers/mastra.ts', ctx, dir, { MASTRA_TELEMETRY_DISABLED: '1' });
    case 'temporal-openai-agents':
      return temporalOpenAiAgents(ctx, dir);
    case 'countersign-rest':
    case 'countersign-signal':
      return countersign(name, ctx, dir);
  }
}
