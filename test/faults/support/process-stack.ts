import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { requireTemporalBinary } from '../../../temporal/binaries.js';
import {
  devServerSearchAttributes,
  startTemporalDevServer,
  type TemporalDevServer,
} from '../../../temporal/dev-server.js';
import type { ApproverConfig } from '../../../protocol/index.js';
import { bundleWorkflows } from '../../../worker/index.js';
import { startChild, type ChildSpec } from './child.js';
import { freePort } from './free-port.js';

export type Role = 'temporal' | 'worker' | 'api';
export const ROLES: readonly Role[] = ['temporal', 'worker', 'api'];

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/** One process of the stack, as the suite kills and watches it. */
export interface StackProcess {
  pid: number;
  /** It has ended, however (a SIGKILL, a crash). */
  readonly exited: boolean;
  /** SIGKILL, and wait until it is gone. */
  kill(): Promise<void>;
  /** Asks a node child over IPC (`Child.request`); the Temporal server takes no requests. */
  request?<T>(message: Record<string, unknown>): Promise<T>;
}

export interface ProcessStackOptions {
  dataDir: string;
  /** A module exporting `createAgents(dataDir)`. */
  agentsModule: string;
  modelUrl: string;
  approvers: ApproverConfig[];
  /** Send approval emails (to `.eml` files in `<dataDir>/outbox`). */
  notify?: boolean;
  decisionWaitMs?: number;
  /** Which processes to run; all three when absent. */
  roles?: readonly Role[];
  /** A file the Temporal server's log is appended to, across restarts; kept in memory only when absent. */
  temporalLog?: string;
  /** A Temporal already running (another stack's): then this stack runs none of its own. */
  temporalAddress?: string;
  /** The settings several instances share; the signing secret is a new one when absent. */
  signingSecret?: string;
  /** In `COUNTERSIGN_SECRET_KEYS`'s format. */
  secretKeys?: string;
  contentDir?: string;
  /** A file holding the bundled workflow code, to bundle once for several stacks. */
  workflowBundle?: string;
  /** The Temporal server's settings (the benchmark's, as `npm start`'s); the server's defaults when absent. */
  serverSettings?: { dynamicConfig: Record<string, number>; sqlitePragmas: Record<string, string> };
}

/** How the real Temporal dev server is started, the first time and after every SIGKILL. */
interface TemporalSpec {
  port: number;
  dbFilename: string;
  logFile?: string;
  /** Server settings (`--dynamic-config-value`), read at every start. */
  dynamicConfig: Record<string, number>;
  sqlitePragmas?: Record<string, string>;
}

/** Launches a role's process; every restart takes the same path with the same settings. */
type Launcher = () => Promise<StackProcess>;

/**
 * A SIGKILLed server's port can be refused for a moment ("address already in use"), and so can
 * the internal ports the CLI picks for itself: try again, within a bound, on the same port.
 */
async function launchTemporal(spec: TemporalSpec): Promise<StackProcess> {
  const executable = requireTemporalBinary('cli', process.env);
  for (let attempt = 1; ; attempt++) {
    let server: TemporalDevServer;
    try {
      server = await startTemporalDevServer({
        executable,
        dbFilename: spec.dbFilename,
        port: spec.port,
        searchAttributes: devServerSearchAttributes,
        logFile: spec.logFile,
        dynamicConfig: spec.dynamicConfig,
        sqlitePragmas: spec.sqlitePragmas,
      });
    } catch (err) {
      if (!/address already in use/i.test((err as Error).message) || attempt >= 40) throw err;
      await sleep(250);
      continue;
    }
    return temporalProcess(server);
  }
}

function temporalProcess(server: TemporalDevServer): StackProcess {
  let exited = false;
  void server.exited.then(() => (exited = true));
  return {
    pid: server.pid,
    get exited() {
      return exited;
    },
    async kill() {
      if (exited) return;
      server.kill('SIGKILL');
      await server.exited;
    },
  };
}

/**
 * Countersign as separate processes: the real Temporal dev server (`temporal server start-dev`) on
 * a SQLite file, one worker, one API. Each can be killed with SIGKILL and restarted on the same
 * ports and files, as an operator's supervisor would.
 */
export class ProcessStack {
  readonly children = new Map<Role, StackProcess>();
  readonly restarts: Record<Role, number> = { temporal: 0, worker: 0, api: 0 };

  private constructor(
    private readonly launchers: Record<Role, Launcher>,
    private readonly temporal: TemporalSpec,
    readonly apiUrl: string,
    readonly temporalAddress: string,
    readonly dbPath: string,
    /** The HMAC key email links are signed with, for tests that forge or tamper with links. */
    readonly signingSecret: string,
  ) {}

  static async start(options: ProcessStackOptions): Promise<ProcessStack> {
    const temporalPort = await freePort();
    const apiPort = await freePort();
    const temporalAddress = options.temporalAddress ?? `127.0.0.1:${temporalPort}`;
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const dbPath = path.join(options.dataDir, 'temporal.db');
    const roles = options.roles ?? ROLES;
    if (options.temporalAddress && roles.includes('temporal'))
      throw new Error('a stack on another Temporal runs no Temporal of its own');
    const bundlePath = options.workflowBundle ?? path.join(options.dataDir, 'workflow-bundle.js');
    if (roles.includes('worker') && !options.workflowBundle)
      writeFileSync(bundlePath, (await bundleWorkflows()).code);
    const signingSecret = options.signingSecret ?? randomBytes(32).toString('base64url');
    const env: Record<string, string> = {
      TEMPORAL_ADDRESS: temporalAddress,
      STACK_AGENTS_MODULE: options.agentsModule,
      STACK_DATA_DIR: options.dataDir,
      STACK_MODEL_URL: options.modelUrl,
      STACK_APPROVERS: JSON.stringify(options.approvers),
      STACK_SIGNING_SECRET: signingSecret,
      STACK_PUBLIC_URL: apiUrl,
      STACK_NOTIFY: options.notify ? '1' : '0',
      STACK_WORKFLOW_BUNDLE: bundlePath,
      ...(options.secretKeys ? { STACK_SECRET_KEYS: options.secretKeys } : {}),
      ...(options.contentDir ? { STACK_CONTENT_DIR: options.contentDir } : {}),
      ...(options.decisionWaitMs === undefined
        ? {}
        : { STACK_DECISION_WAIT_MS: String(options.decisionWaitMs) }),
    };
    const temporal: TemporalSpec = {
      port: temporalPort,
      dbFilename: dbPath,
      logFile: options.temporalLog,
      dynamicConfig: { ...options.serverSettings?.dynamicConfig },
      sqlitePragmas: options.serverSettings?.sqlitePragmas,
    };
    const worker: ChildSpec = {
      label: 'worker',
      file: here('../stack/worker-process.ts'),
      env,
      nodeArgs: ['--expose-gc'],
      ready: 'ipc',
      timeoutMs: 120_000,
    };
    const api: ChildSpec = {
      label: 'api',
      file: here('../stack/api-process.ts'),
      env: { ...env, PORT: String(apiPort) },
      nodeArgs: ['--expose-gc'],
      ready: 'ipc',
    };
    const launchers: Record<Role, Launcher> = {
      temporal: () => launchTemporal(temporal),
      worker: () => startChild(worker),
      api: () => startChild(api),
    };
    const stack = new ProcessStack(launchers, temporal, apiUrl, temporalAddress, dbPath, signingSecret);
    try {
      for (const role of roles) await stack.launch(role);
    } catch (err) {
      // Children left running would keep the caller's process alive after its failure.
      await stack.stop();
      throw err;
    }
    return stack;
  }

  pid(role: Role): number {
    return this.children.get(role)!.pid;
  }

  private async launch(role: Role): Promise<void> {
    this.children.set(role, await this.launchers[role]());
  }

  async kill(role: Role): Promise<void> {
    await this.children.get(role)?.kill();
  }

  /**
   * The server settings the Temporal server takes from its next (re)start on, as an operator
   * changes a cluster's dynamic config.
   */
  setTemporalConfig(values: Record<string, number>): void {
    this.temporal.dynamicConfig = values;
  }

  /** A full garbage collection in the worker and the API (their main threads), where they run. */
  async collectGarbage(): Promise<void> {
    for (const role of ['worker', 'api'] as const) await this.children.get(role)?.request?.({ type: 'gc' });
  }

  /** SIGKILL, then start again with the same settings. */
  async restart(role: Role): Promise<void> {
    await this.kill(role);
    this.restarts[role]++;
    await this.launch(role);
  }

  async stop(): Promise<void> {
    for (const role of [...ROLES].reverse()) await this.kill(role);
    this.children.clear();
  }
}
