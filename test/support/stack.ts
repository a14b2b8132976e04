import { randomBytes } from 'node:crypto';
import type { KeySet } from '../../codec/keyring.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import { Client, Connection } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import type { ContentStore } from '../../content-store/content-store.js';
import type { SlackRouterOptions } from '../../api/slack/options.js';
import type { SlackNotifierOptions } from '../../notify/slack/options.js';
import { createApi } from '../../api/create-api.js';
import type { AgentDefinition } from '../../define/index.js';
import { createNotifier } from '../../notify/notifier.js';
import type { ApprovalView, ApproverConfig, RunOutput, RunState } from '../../protocol/index.js';
import { stateQuery } from '../../workflows/definitions.js';
import { FakeModel, type ScriptStep } from './fake-model.js';
import { apiTestAgents, testApprovers } from './api-agents.js';
import { assertListedErrorCode } from './listed-error-code.js';
import { getTestTemporal } from './temporal-server.js';
import { holdListAnswers, visibilityLagMs } from './visibility-lag.js';
import { countListedRuns } from './listed-runs.js';
import { waitFor } from './wait-for.js';
import { startTestWorker } from './worker.js';

export interface HttpAnswer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface Stack {
  /** The API's base URL (also its public URL, used in email links). */
  url: string;
  /** A client of the stack's Temporal, with the stack's payload codec when it has one. */
  client: Client;
  fake: FakeModel;
  dataDir: string;
  signingSecret: string;
  approvers: ApproverConfig[];
  /**
   * JSON over real HTTP; `token` becomes the bearer token. A decision is sent as a person who just
   * read the approval sends it, naming the revision they were shown (If-Match, from its ETag),
   * unless the test gives its own `if-match` header (an empty one sends none).
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test asserts the shape it reads
  http<T = any>(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<HttpAnswer<T>>;
  /**
   * GETs a list route until `shows` holds for its body: lists read Temporal's visibility store,
   * which catches up with a write a little after it (a second or more on a real cluster).
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test asserts the shape it reads
  listUntil<T = any>(route: string, token: string, shows: (body: T) => boolean): Promise<T>;
  /** Scripts the fake model for this input and starts a run through the API. */
  startRun(agent: string, input: string, token: string, ...script: ScriptStep[]): Promise<string>;
  state(runId: string): Promise<RunState>;
  /** Waits until the run has at least `count` pending approvals. */
  waitForPending(runId: string, count?: number): Promise<ApprovalView[]>;
  result(runId: string): Promise<RunOutput>;
  /** Stops the worker, so runs take no decisions until `startWorker`. */
  stopWorker(): Promise<void>;
  /** How many runs the running worker holds in its workflow cache. */
  cachedRuns(): number;
  /** How many calls of this Temporal method (`ListWorkflowExecutions`...) the API has made. */
  apiCalls(method: string): number;
  /** In how many of the API's list answers this run was. */
  apiListed(runId: string): number;
  /**
   * Starts the worker again; `address` connects it elsewhere (a proxy in front of Temporal),
   * `payloadCodec` gives it other keys, `workflowBundle` other workflows.
   */
  startWorker(options?: {
    address?: string;
    payloadCodec?: PayloadCodec;
    workflowBundle?: { code: string };
  }): Promise<void>;
  /** Where Temporal (the test's own dev server, or TEMPORAL_ADDRESS) listens. */
  temporalAddress: string;
  /** The worker's task queue, for an API of the test's own to start runs on. */
  taskQueue: string;
  close(): Promise<void>;
}

export interface StackOptions {
  agents?: AgentDefinition[];
  approvers?: ApproverConfig[];
  smtpUrl?: string;
  webhookUrl?: string;
  decisionWaitMs?: number;
  /** The API's `workerWaitMs`: how long a read waits for a run's worker. */
  workerWaitMs?: number;
  /** Lowers a server limit on a dev server of the stack's own (`limit.historyCount.suggestContinueAsNew`...). */
  dynamicConfig?: Record<string, number>;
  /** Given to the worker and the API alike, as a service that keeps large tool outputs out of runs does. */
  contentStore?: ContentStore;
  /** Encrypts payloads: the worker, the API's client, the API's codec endpoint and `client` share it. */
  payloadCodec?: PayloadCodec;
  /** The API's `codecCorsOrigins`. */
  codecCorsOrigins?: string[];
  /** Seals and opens supplied secrets: the API and the worker share them. Default: a fresh key. */
  secretKeys?: KeySet | null;
  /** Slack for the notifier (cards) and the API (their buttons). */
  slack?: { notifier: SlackNotifierOptions; router: SlackRouterOptions };
}

/**
 * The whole thing in one process on free ports: a Temporal dev server (or TEMPORAL_ADDRESS), the real
 * worker with the email/webhook notifier, the scripted fake model, and the API with its inbox.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const agents = options.agents ?? apiTestAgents;
  const approvers = options.approvers ?? testApprovers;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'countersign-stack-'));
  const signingSecret = 'test-signing-secret-0123456789abcdef-0123456789';
  const { dynamicConfig } = options;
  const temporal = await getTestTemporal(dynamicConfig ? { dynamicConfig } : {});
  const { payloadCodec } = options;
  const secretKeys =
    options.secretKeys === null
      ? undefined
      : (options.secretKeys ?? { keys: { s1: randomBytes(32) }, encryptWith: 's1' });
  const dataConverter = payloadCodec ? { payloadCodecs: [payloadCodec] } : undefined;
  const client = payloadCodec
    ? new Client({ connection: temporal.connection, namespace: temporal.namespace, dataConverter })
    : temporal.client;
  const fake = await FakeModel.start();
  // The API has a connection of its own, whose calls are counted by method.
  const apiCallCounts = new Map<string, number>();
  const countCalls: Interceptor = (call, next) => {
    const method = call.method_definition.path.split('/').pop()!;
    apiCallCounts.set(method, (apiCallCounts.get(method) ?? 0) + 1);
    return new InterceptingCall(next(call));
  };
  const listedRuns = countListedRuns();
  const lag = visibilityLagMs();
  const apiConnection = await Connection.connect({
    address: temporal.address,
    interceptors: [countCalls, listedRuns.interceptor, ...(lag > 0 ? [holdListAnswers(lag)] : [])],
  });

  // Listen first, so the API and the notifier's links know the real URL.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const notifier = createNotifier({
    approvers,
    signingSecret,
    publicUrl: url,
    dataDir,
    smtpUrl: options.smtpUrl,
    mailFrom: 'Countersign <countersign@example.com>',
    webhookUrl: options.webhookUrl,
    slack: options.slack?.notifier,
  });
  const workerOptions = {
    address: temporal.address,
    namespace: temporal.namespace,
    agents,
    model: { baseUrl: fake.url, apiKey: 'test-key' },
    notifier,
    contentStore: options.contentStore,
    payloadCodec,
    secretKeys,
  };
  let worker = await startTestWorker(workerOptions);
  let workerRunning = true;
  const app = createApi({
    client: new Client({ connection: apiConnection, namespace: temporal.namespace, dataConverter }),
    namespace: temporal.namespace,
    taskQueue: worker.taskQueue,
    agents,
    approvers,
    signingSecret,
    publicUrl: url,
    defaultModel: 'fake-model',
    decisionWaitMs: options.decisionWaitMs,
    workerWaitMs: options.workerWaitMs,
    listPollMs: 200,
    contentStore: options.contentStore,
    payloadCodec,
    codecCorsOrigins: options.codecCorsOrigins,
    secretKeys,
    slack: options.slack?.router,
  });
  server.on('request', app);

  const stack: Stack = {
    url,
    client,
    fake,
    dataDir,
    signingSecret,
    approvers,
    temporalAddress: temporal.address,
    taskQueue: worker.taskQueue,
    async http(method, route, opts = {}) {
      const headers: Record<string, string> = {
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...opts.headers,
      };
      const decision = /^\/api\/approvals\/([^/]+)\/decision$/.exec(route);
      if (method === 'POST' && decision && headers['if-match'] === undefined) {
        // A busy Temporal answers 503 (retry it); any other answer without an ETag is the test's to see.
        let shown: Response;
        for (let tries = 0; ; tries++) {
          shown = await fetch(`${url}/api/approvals/${decision[1]}`, {
            headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
          });
          if (shown.status !== 503 || tries >= 50) break;
          await sleep(100);
        }
        const etag = shown.headers.get('etag');
        if (etag) headers['if-match'] = etag;
      }
      if (headers['if-match'] === '') delete headers['if-match'];
      const response = await fetch(url + route, {
        method,
        headers,
        body:
          opts.body === undefined
            ? undefined
            : typeof opts.body === 'string'
              ? opts.body
              : JSON.stringify(opts.body),
      });
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Not JSON (an HTML page, an empty body): tests read `text`.
      }
      assertListedErrorCode(route, response.status, body);
      return { status: response.status, headers: response.headers, body: body as never, text };
    },
    listUntil: (route, token, shows) =>
      waitFor(async () => {
        const answer = await stack.http('GET', route, { token });
        if (answer.status !== 200) throw new Error(`GET ${route} answered ${answer.status}: ${answer.text}`);
        return shows(answer.body) ? answer.body : undefined;
      }, `GET ${route} to show what the test wrote`),
    async startRun(agent, input, token, ...script) {
      fake.script(input, ...script);
      const answer = await stack.http<{ runId: string }>('POST', '/api/runs', {
        token,
        body: { agent, input },
      });
      if (answer.status !== 201) throw new Error(`starting a run answered ${answer.status}: ${answer.text}`);
      return answer.body.runId;
    },
    state: (runId) => client.workflow.getHandle(runId).query(stateQuery),
    async waitForPending(runId, count = 1) {
      for (;;) {
        const state = await stack.state(runId);
        if (state.pending.length >= count) return state.pending;
        if (state.status === 'completed' || state.status === 'failed' || state.status === 'cancelled') {
          throw new Error(
            `run ${runId} ended (${state.status}) while waiting for ${count} pending approvals`,
          );
        }
        await sleep(50);
      }
    },
    result: (runId) => client.workflow.getHandle(runId).result() as Promise<RunOutput>,
    async stopWorker() {
      await worker.stop();
      workerRunning = false;
    },
    cachedRuns: () => worker.worker.getStatus().numCachedWorkflows,
    apiCalls: (method) => apiCallCounts.get(method) ?? 0,
    apiListed: listedRuns.listed,
    async startWorker({
      address = temporal.address,
      payloadCodec: codec = payloadCodec,
      workflowBundle,
    } = {}) {
      worker = await startTestWorker({
        ...workerOptions,
        address,
        payloadCodec: codec,
        taskQueue: worker.taskQueue,
        workflowBundle,
      });
      workerRunning = true;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (workerRunning) await worker.stop();
      notifier.close();
      await fake.close();
      await apiConnection.close();
      await temporal.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return stack;
}
