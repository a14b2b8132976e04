import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  serveChatCompletions,
  type ChatCompletionsServer,
} from '../../../model-server/chat-completions-server.js';
import type { ApproverConfig } from '../../../protocol/index.js';
import { bundleWorkflows } from '../../../worker/index.js';
import { ProcessStack, type Role } from './process-stack.js';
import { Rest } from './rest.js';

const AGENTS_MODULE = fileURLToPath(new URL('./instance-agents.ts', import.meta.url));

/** What every worker and API of a task queue must share, beside Temporal and the approvers. */
export interface SharedSettings {
  signingSecret: string;
  /** In `COUNTERSIGN_SECRET_KEYS`'s format. */
  secretKeys: string;
  contentDir: string;
}

export interface Instance {
  name: string;
  stack: ProcessStack;
  /** Its own data dir: its outbox, when its worker sends mail. */
  dataDir: string;
  /** As the requester, then as the reviewer. */
  requester: Rest;
  reviewer: Rest;
}

export interface Instances {
  root: string;
  approvers: ApproverConfig[];
  /** The settings as the first instances share them; `newSettings` makes another set. */
  shared: SharedSettings;
  newSettings(name: string): SharedSettings;
  /** Starts an instance (a worker and an API by default, each a process of its own) on the one Temporal. */
  start(name: string, settings: SharedSettings, roles?: readonly Role[]): Promise<Instance>;
}

const secretKey = () => `s-${randomBytes(3).toString('hex')}:${randomBytes(32).toString('base64')}`;

/**
 * A stateless model: "pay R", "report R" and "dump N" ask for the tool of that name; once a tool has
 * answered (or a person refused), it finishes, repeating what the tool said.
 */
function serveInstanceModel(): Promise<ChatCompletionsServer> {
  return serveChatCompletions((request) => {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { content: `finished: ${String(last.content).slice(0, 200)}` };
    const input = String(request.messages.find((m) => m.role === 'user')?.content ?? '');
    const [verb, value = ''] = input.split(' ');
    const call = (name: string, args: Record<string, unknown>) => ({
      content: null,
      tool_calls: [{ function: { name, arguments: args } }],
    });
    if (verb === 'pay') return call('pay', { ref: value });
    if (verb === 'report') return call('read_report', { ref: value });
    if (verb === 'dump') return call('dump_log', { lines: Number(value) });
    return { content: 'finished: nothing asked' };
  });
}

/**
 * Several Countersign instances on one Temporal dev server, each its own processes, as a team
 * runs them behind a load balancer. Everything stops when the test ends; FAULT_KEEP=1 keeps the
 * data directory.
 */
export async function startInstances(t: TestContext, name: string): Promise<Instances> {
  const model = await serveInstanceModel();
  const root = mkdtempSync(path.join(os.tmpdir(), `countersign-${name}-`));
  const stacks: ProcessStack[] = [];
  t.after(async () => {
    for (const stack of stacks.reverse()) await stack.stop();
    await model.close();
    if (process.env.FAULT_KEEP === '1') console.error(`# instance data kept in ${root}`);
    else rmSync(root, { recursive: true, force: true });
  });
  const token = () => randomBytes(24).toString('base64url');
  const approvers: ApproverConfig[] = [
    { id: 'requester', email: 'requester@example.test', roles: ['requester'], token: token() },
    { id: 'reviewer', email: 'reviewer@example.test', roles: ['reviewer'], token: token() },
  ];
  const common = { agentsModule: AGENTS_MODULE, modelUrl: model.url, approvers };
  const temporal = await ProcessStack.start({
    ...common,
    dataDir: root,
    roles: ['temporal'],
    temporalLog: path.join(root, 'temporal.log'),
  });
  stacks.push(temporal);
  // Bundled once for every worker.
  const workflowBundle = path.join(root, 'workflow-bundle.js');
  writeFileSync(workflowBundle, (await bundleWorkflows()).code);

  const newSettings = (label: string): SharedSettings => {
    const contentDir = path.join(root, `content-${label}`);
    mkdirSync(contentDir, { recursive: true });
    return { signingSecret: randomBytes(32).toString('base64url'), secretKeys: secretKey(), contentDir };
  };
  return {
    root,
    approvers,
    shared: newSettings('shared'),
    newSettings,
    async start(instanceName, settings, roles = ['worker', 'api']) {
      const dataDir = path.join(root, instanceName);
      mkdirSync(dataDir, { recursive: true });
      const stack = await ProcessStack.start({
        ...common,
        ...settings,
        dataDir,
        roles,
        notify: roles.includes('worker'),
        temporalAddress: temporal.temporalAddress,
        workflowBundle,
      });
      stacks.push(stack);
      return {
        name: instanceName,
        stack,
        dataDir,
        requester: new Rest(stack.apiUrl, approvers[0]!.token!),
        reviewer: new Rest(stack.apiUrl, approvers[1]!.token!),
      };
    },
  };
}
