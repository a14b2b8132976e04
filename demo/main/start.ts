import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@temporalio/client';
import { Runtime } from '@temporalio/worker';
import {
  aesGcmCodec,
  fileContentStore,
  loadPayloadKeys,
  loadSecretKeys,
  loadSigningSecret,
  signingKeyId,
  loadTemporalConfig,
  type AgentDefinition,
  type KeySet,
} from 'countersign';
import { servingGate } from 'countersign/api';
import { registerSearchAttributes } from 'countersign/client';
import { removeInstanceFile, writeInstanceFile } from 'countersign/dev';
import { bundleWorkflows, createNotifier, createWorker, type ModelSettings } from 'countersign/worker';
import { startDemoAgents } from '../agents/index.js';
import { loadApprovers } from '../config/approvers.js';
import { loadCountersignConfig } from '../config/countersign.js';
import { loadSlackConfig } from '../config/slack.js';
import { startDemoModel } from '../demo-model/index.js';
import { banner } from './banner.js';
import { demoApp } from './chat-page.js';
import { demoLogger } from './log-lines.js';
import { connectTemporal } from './temporal.js';

export interface StartOptions {
  /** Settings as environment variables; `process.env` by default. */
  env?: NodeJS.ProcessEnv;
  /** Override PORT; 0 picks a free port. */
  port?: number;
  /** Override COUNTERSIGN_DATA_DIR. */
  dataDir?: string;
  /**
   * Ports of the Temporal dev server started when TEMPORAL_ADDRESS is unset: 7233 and its Web UI
   * on 8233 by default (free ones when taken); 0 picks free ones.
   */
  devServerPorts?: { port?: number; uiPort?: number };
  /**
   * Run the dev server in a process group of its own, so that a terminal's Ctrl-C reaches this
   * process alone, which stops the API and the worker before Temporal (`npm start`).
   */
  ownTemporalProcessGroup?: boolean;
  /** Agents to run; the demo agents by default. */
  agents?: AgentDefinition[];
}

export interface Countersign {
  url: string;
  dataDir: string;
  adminToken?: string;
  /** The demo's second approver's token, when no approvers file was given. */
  cfoToken?: string;
  temporalAddress: string;
  /** The Temporal Web UI, when Countersign started the dev server. */
  temporalUiUrl?: string;
  modelUrl?: string;
  /** What `npm start` prints. */
  banner: string;
  /** Rejects if the worker stops on its own (not through `stop`). */
  worker: Promise<void>;
  /** Resolves if the Temporal dev server Countersign started ends on its own. */
  temporalExited?: Promise<string>;
  stop(): Promise<void>;
}

/** Stops what was started so far, newest first, when a later step fails or on shutdown. */
class Stack {
  private readonly steps: (() => Promise<void> | void)[] = [];

  add(step: () => Promise<void> | void): void {
    this.steps.unshift(step);
  }

  async unwind(): Promise<void> {
    for (const step of this.steps.splice(0)) {
      await Promise.resolve(step()).catch((error: unknown) =>
        console.error('countersign: while stopping:', error),
      );
    }
  }
}

function portInUse(port: number, host: string): Error {
  return new Error(
    `port ${port} on ${host} is already in use. Stop what holds it, or start on another port: PORT=3001 npm start`,
  );
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'EADDRINUSE' ? portInUse(port, host) : error);
    });
    server.listen(port, host, () => resolve());
  });
}

/** Whatever is still connected once the gate has let in-flight requests finish. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * The keys that seal the secrets people supply to tools (the demo's database password): those of
 * COUNTERSIGN_SECRET_KEYS, else one made for this process alone. What that one sealed cannot be
 * opened after a restart: a call that needs a secret supplied before it (one kept for the run, or
 * one supplied just before the stop) then fails, saying which key it lacks. Secrets asked for after
 * the restart are sealed with the new key.
 */
function secretKeysOf(env: NodeJS.ProcessEnv): { keys: KeySet; description: string } {
  const keys = loadSecretKeys(env);
  if (keys)
    return { keys, description: `secrets sealed with key ${keys.encryptWith} (COUNTERSIGN_SECRET_KEYS)` };
  const id = `process-${randomBytes(4).toString('hex')}`;
  return {
    keys: { keys: { [id]: randomBytes(32) }, encryptWith: id },
    description:
      'a fresh key for this process (set COUNTERSIGN_SECRET_KEYS to keep supplied secrets usable across restarts and instances)',
  };
}

let runtimeInstalled = false;

/**
 * The SDK's native runtime logs every poll at INFO; warnings and errors are what an operator needs,
 * an activity's failure in one line.
 */
function installRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: demoLogger('WARN') });
  } catch {
    // The embedding process installed its own runtime already; that one serves.
  }
}

/**
 * Everything `npm start` runs: Temporal (`temporal server start-dev` as a child process unless
 * TEMPORAL_ADDRESS is set), the offline demo model (unless a model is configured), the worker,
 * and the API with its inbox.
 */
export async function startCountersign(options: StartOptions = {}): Promise<Countersign> {
  const env = options.env ?? process.env;
  const config = loadCountersignConfig(env);
  // SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET turn Slack on: cards from the worker, buttons at the API.
  const slack = loadSlackConfig(env);
  const temporalConfig = loadTemporalConfig(env);
  const dataDir = options.dataDir ? path.resolve(options.dataDir) : config.dataDir;
  mkdirSync(dataDir, { recursive: true });
  const stack = new Stack();

  // Listening first: a taken port fails before anything else starts, and until the API is ready
  // every request is answered 503 with Retry-After instead of waiting on a half-started service.
  const gate = servingGate();
  const server = createServer(gate.listener);
  await listen(server, options.port ?? config.port, config.host);
  stack.add(() => closeServer(server));
  const port = (server.address() as AddressInfo).port;
  try {
    let agents = options.agents;
    if (!agents) {
      // The helpdesk's ticket MCP server runs as a child process until the worker has stopped.
      const demoAgents = await startDemoAgents({ dataDir });
      stack.add(() => demoAgents.close());
      agents = demoAgents.agents;
    }
    const approvers = loadApprovers({ file: config.approversFile, dataDir });
    const signingSecret = loadSigningSecret(dataDir, config.signingSecret);
    // COUNTERSIGN_PAYLOAD_KEYS turns encryption at rest on: worker, API client and codec endpoint share it.
    const payloadKeys = loadPayloadKeys(env);
    const payloadCodec = payloadKeys && aesGcmCodec(payloadKeys);
    // Secret keys, kept apart from the payload keys: the API seals what a person types for a tool,
    // the worker opens it just before the tool runs; the codec endpoint never can.
    const secretKeys = secretKeysOf(env);

    installRuntime();
    const temporal = await connectTemporal(
      temporalConfig,
      dataDir,
      { ...options.devServerPorts, ownProcessGroup: options.ownTemporalProcessGroup },
      env,
    );
    stack.add(() => temporal.close());
    if (config.registerSearchAttributes) {
      await registerSearchAttributes(temporal.client, temporalConfig.namespace);
    }
    const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    const publicUrl = config.publicUrl ?? url;

    const realModel = Boolean(config.model.apiKey || config.model.baseUrl);
    const demo = realModel ? undefined : await startDemoModel();
    if (demo) stack.add(() => demo.close());
    const model: ModelSettings = demo
      ? { baseUrl: demo.url, apiKey: 'offline-demo-model' }
      : { ...config.model, name: undefined };
    const defaultModel = demo ? 'countersign-offline-demo' : config.model.name;

    const notifier = createNotifier({
      approvers: approvers.approvers,
      signingSecret,
      publicUrl,
      dataDir,
      smtpUrl: config.smtpUrl,
      mailFrom: config.mailFrom,
      webhookUrl: config.webhookUrl,
      slack: slack?.notifier,
    });
    stack.add(() => notifier.close());

    // Large tool outputs stay out of the run's history. The API reads them from the same store, for
    // "Show output" in the inbox; several instances share one directory (COUNTERSIGN_CONTENT_DIR).
    const contentDir = config.contentDir ?? path.join(dataDir, 'content');
    const contentStore = fileContentStore(contentDir);
    const worker = await createWorker({
      connection: temporal.worker,
      namespace: temporalConfig.namespace,
      taskQueue: temporalConfig.taskQueue,
      agents,
      model,
      notifier,
      contentStore,
      payloadCodec,
      secretKeys: secretKeys.keys,
      workflowBundle: await bundleWorkflows({ encryptFailures: payloadCodec !== undefined }),
      identity: `countersign-${process.pid}@${hostname()}`,
      workerOptions: { shutdownGraceTime: '5 seconds' },
    });
    const running = worker.run();
    // Marked as handled here; callers observe a failure through `worker`.
    running.catch(() => undefined);
    stack.add(async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
    });

    const client = new Client({
      connection: temporal.client,
      namespace: temporalConfig.namespace,
      ...(payloadCodec ? { dataConverter: { payloadCodecs: [payloadCodec] } } : {}),
    });
    // The API and inbox, and the chat page beside them at /chat/.
    gate.open(
      demoApp({
        client,
        namespace: temporalConfig.namespace,
        taskQueue: temporalConfig.taskQueue,
        agents,
        approvers: approvers.approvers,
        signingSecret,
        publicUrl,
        defaultModel,
        contentStore,
        payloadCodec,
        secretKeys: secretKeys.keys,
        codecCorsOrigins: config.codecCorsOrigins,
        slack: slack?.router,
      }),
    );
    // First on the way down: new requests get 503 while those in flight finish, before the
    // connections they use go away.
    stack.add(() => gate.close());
    // `npx countersign` on this machine finds the API through it, whatever the port.
    writeInstanceFile(dataDir, url);
    stack.add(() => removeInstanceFile(dataDir));

    const text = banner({
      url,
      adminToken: approvers.adminToken,
      adminTokenFile: approvers.adminTokenFile,
      cfoToken: approvers.cfoToken,
      cfoTokenFile: approvers.cfoTokenFile,
      approversFile: config.approversFile,
      outbox: path.join(dataDir, 'outbox'),
      temporal: temporal.devServer
        ? `temporal server start-dev at ${temporal.address} (state in ${temporal.dbPath}, log in ${temporal.logPath}; set TEMPORAL_ADDRESS to use your own cluster)`
        : `${temporal.address}, namespace ${temporalConfig.namespace}, task queue ${temporalConfig.taskQueue}`,
      temporalUi: temporal.devServer?.uiUrl,
      notes: [
        ...temporal.notes,
        ...(slack
          ? [
              `Slack is on: cards go to ${slack.channel ? `channel ${slack.channel} and ` : ''}approvers' direct messages; set the Slack app's interactivity URL to ${publicUrl}/slack/interactions`,
            ]
          : []),
      ],
      model: demo
        ? `the OFFLINE DEMO MODEL at ${demo.url}: rule-based, not an LLM; it understands the demo agents' example requests only. Set OPENAI_API_KEY (and OPENAI_BASE_URL) for a real model.`
        : `${config.model.name} at ${config.model.baseUrl ?? 'api.openai.com'}`,
      agents: agents.map((a) => a.name),
      encryption:
        payloadKeys &&
        `payloads encrypted with key ${payloadKeys.encryptWith} (COUNTERSIGN_PAYLOAD_KEYS); codec endpoint ${publicUrl}/api/codec`,
      secretKeys: secretKeys.description,
      signingKeyId: signingKeyId(signingSecret),
      // Asking for the id makes it now, so every instance sharing the directory shows this one.
      contentStore: { dir: contentDir, id: await contentStore.id() },
    });
    return {
      url,
      dataDir,
      adminToken: approvers.adminToken,
      cfoToken: approvers.cfoToken,
      temporalAddress: temporal.address,
      temporalUiUrl: temporal.devServer?.uiUrl,
      temporalExited: temporal.devServer?.exited.then(
        ({ code, signal }) =>
          `the Temporal dev server exited (${signal ?? `code ${code}`}); its log: ${temporal.logPath}`,
      ),
      modelUrl: demo?.url ?? config.model.baseUrl,
      banner: text,
      worker: running,
      stop: () => stack.unwind(),
    };
  } catch (error) {
    await stack.unwind();
    throw error;
  }
}

/** `npm start`: run until Ctrl-C, then stop cleanly. */
async function main(): Promise<void> {
  let countersign: Countersign;
  console.log('Starting Countersign...');
  try {
    countersign = await startCountersign({ ownTemporalProcessGroup: true });
  } catch (error) {
    console.error(`countersign: ${(error as Error).message}`);
    process.exit(1);
  }
  console.log(countersign.banner);
  let stopping = false;
  const stop = (reason: string, code: number) => {
    // npm and tsx forward the terminal's Ctrl-C too, so one keypress arrives more than once.
    if (stopping) return;
    stopping = true;
    console.log(`\n${reason}: stopping Countersign...`);
    setTimeout(() => {
      console.error('countersign: still stopping after 20 seconds; exiting anyway.');
      process.exit(1);
    }, 20_000).unref();
    countersign.stop().then(
      () => {
        console.log('Stopped. Runs and pending approvals are kept; npm start picks them up again.');
        process.exit(code);
      },
      (error: unknown) => {
        console.error('countersign: stop failed:', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT', 0));
  process.on('SIGTERM', () => stop('SIGTERM', 0));
  // Its terminal closing no longer reaches Temporal, in a process group of its own: stop it from here.
  process.on('SIGHUP', () => stop('SIGHUP', 0));
  void countersign.temporalExited?.then((reason) => {
    if (stopping) return;
    console.error(`countersign: ${reason}`);
    stop('Temporal stopped', 1);
  });
  countersign.worker.then(
    () => {
      if (!stopping) stop('the worker stopped', 1);
    },
    (error: unknown) => {
      console.error('countersign: the worker failed:', error);
      stop('the worker failed', 1);
    },
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
