import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ApproverConfig } from '../../../protocol/index.js';
import { bundleWorkflows } from '../../../worker/index.js';
import { startChild, type Child, type ChildSpec } from './child.js';
import { freePort } from './free-port.js';

export type Role = 'devserver' | 'worker' | 'api';
export const ROLES: readonly Role[] = ['devserver', 'worker', 'api'];

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

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
}

/**
 * Countersign as separate processes: the devserver on a SQLite file, one worker, one API. Each
 * can be killed with SIGKILL and restarted on the same ports and files, as an operator's
 * supervisor would.
 */
export class ProcessStack {
  readonly children = new Map<Role, Child>();
  readonly restarts: Record<Role, number> = { devserver: 0, worker: 0, api: 0 };

  private constructor(
    private readonly specs: Record<Role, ChildSpec>,
    readonly apiUrl: string,
    readonly temporalAddress: string,
    readonly dbPath: string,
    /** The HMAC key email links are signed with, for tests that forge or tamper with links. */
    readonly signingSecret: string,
  ) {}

  static async start(options: ProcessStackOptions): Promise<ProcessStack> {
    const temporalPort = await freePort();
    const apiPort = await freePort();
    const temporalAddress = `127.0.0.1:${temporalPort}`;
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const dbPath = path.join(options.dataDir, 'temporal.db');
    const roles = options.roles ?? ROLES;
    const bundlePath = path.join(options.dataDir, 'workflow-bundle.js');
    if (roles.includes('worker')) writeFileSync(bundlePath, (await bundleWorkflows()).code);
    const signingSecret = randomBytes(32).toString('base64url');
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
      ...(options.decisionWaitMs === undefined
        ? {}
        : { STACK_DECISION_WAIT_MS: String(options.decisionWaitMs) }),
    };
    const specs: Record<Role, ChildSpec> = {
      devserver: {
        label: 'devserver',
        file: 'devserver/cli.ts',
        args: ['--port', String(temporalPort), '--db', dbPath],
        ready: { port: temporalPort },
      },
      worker: {
        label: 'worker',
        file: here('../stack/worker-process.ts'),
        env,
        ready: 'ipc',
        timeoutMs: 120_000,
      },
      api: {
        label: 'api',
        file: here('../stack/api-process.ts'),
        env: { ...env, PORT: String(apiPort) },
        ready: 'ipc',
      },
    };
    const stack = new ProcessStack(specs, apiUrl, temporalAddress, dbPath, signingSecret);
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
    this.children.set(role, await startChild(this.specs[role]));
  }

  async kill(role: Role): Promise<void> {
    await this.children.get(role)?.kill();
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
