import type { KeySet } from '../codec/keyring.js';
import { secretSealer, type SecretSealer } from '../secrets/sealer.js';
import type { Client } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import type { Request } from 'express';
import type { ContentStore } from '../content-store/content-store.js';
import { checkedHooks } from './identity.js';
import { WORKER_WAIT_MS } from './runs/worker-wait.js';
import type { EventStreamLimits } from './live/stream-slots.js';
import type { SlackRouterOptions } from './slack/options.js';
import type { AgentDefinition } from '../define/index.js';
import { withSubAgents } from '../define/sub-agents.js';
import {
  DEFAULT_MODEL,
  DEFAULT_TASK_QUEUE,
  identityOf,
  type ApproverConfig,
  type ApproverIdentity,
} from '../protocol/index.js';

/**
 * How your service tells Countersign who is calling. Return the approver a request comes from, or
 * undefined for a request that is not authenticated (a 401). Throwing answers 500: map your own
 * "not logged in" to undefined. An identity outside `ApproverIdentity`'s rules (a backslash in the
 * id, an id over 200 characters, over 50 roles) answers `403 identity_not_supported`.
 *
 * @example
 * ```ts
 * const authenticate: Authenticate = async (req) => {
 *   const user = await sessions.userOf(req.get('cookie'));
 *   return user && { id: user.email, roles: user.groups };
 * };
 * ```
 */
export type Authenticate = (
  req: Request,
) => ApproverIdentity | undefined | Promise<ApproverIdentity | undefined>;

/**
 * Looks an approver up by id: an email link is signed for one, and acts with their roles now.
 *
 * @example
 * ```ts
 * import type { FindApprover } from 'countersign/api';
 *
 * const findApprover: FindApprover = async (id) => {
 *   const user = await directory.byEmail(id);
 *   return user && { id: user.email, email: user.email, roles: user.groups };
 * };
 * ```
 */
export type FindApprover = (
  id: string,
) => ApproverIdentity | undefined | Promise<ApproverIdentity | undefined>;

/**
 * What `countersignRouter` and `createApi` need. Give `authenticate` (your own login) or
 * `approvers` (bearer tokens), or both.
 *
 * @example
 * ```ts
 * import { readFile } from 'node:fs/promises';
 * import { ApproversFile } from 'countersign';
 * import { countersignRouter, type CountersignApiOptions } from 'countersign/api';
 *
 * const options: CountersignApiOptions = {
 *   client,
 *   agents: [support],
 *   approvers: ApproversFile.parse(JSON.parse(await readFile('approvers.json', 'utf8'))).approvers,
 *   signingSecret: process.env.LINK_SECRET!,
 *   publicUrl: 'https://ops.example.com/approvals',
 * };
 * app.use('/approvals', countersignRouter(options));
 * ```
 */
export interface CountersignApiOptions {
  /** A client of the Temporal the workers run on. */
  client: Client;
  /** Temporal namespace; `default` when left out. */
  namespace?: string;
  /** The task queue the workers poll; Countersign's default when left out. */
  taskQueue?: string;
  /** The agents runs may be started for (their policies also decide who may read a run). */
  agents: AgentDefinition[];
  /**
   * Approvers with bearer tokens (the approvers file). Used to authenticate requests unless
   * `authenticate` is given, and to find the approver of an email link unless `findApprover` is.
   */
  approvers?: ApproverConfig[];
  /** Your own authentication: maps a request to an approver. */
  authenticate?: Authenticate;
  /** Your own directory, for email links; without it (or `approvers`) links answer 403. */
  findApprover?: FindApprover;
  /** The secret email links are signed with (HMAC); at least 32 random bytes. */
  signingSecret: string;
  /** Where people reach the router, mount path included: email links and the inbox use it. */
  publicUrl: string;
  /** The model for agents that name none. */
  defaultModel?: string;
  /** How long a decision request waits for the workflow's answer before answering 202; 5 s by default. */
  decisionWaitMs?: number;
  /** How often the global event stream re-reads the run list; 1 s by default. */
  listPollMs?: number;
  /**
   * How late Temporal's lists may show a run's change; 2 s by default. The inbox stream sends each
   * event once it is this old, in time order, so that a `Last-Event-ID` resumes exactly; a change
   * shown later still comes, out of order.
   */
  visibilityLagMs?: number;
  /**
   * How long a read waits for a run's worker (a query) before answering without it; 5 s by
   * default (a busy run's query may wait about that long for its turn). Past it,
   * `GET /api/runs/:runId` answers from Temporal alone with `worker: 'not_answering'`, and a read
   * that needs the worker (one approval) answers `503 worker_not_answering` with Retry-After.
   */
  workerWaitMs?: number;
  /**
   * How many event streams one caller (by approver id), and all callers together, may hold open on
   * this API instance: 20 and 1000 by default. Past either, a stream is refused with
   * `429 too_many_streams` and Retry-After; a closed stream frees its slot.
   *
   * @example
   * ```ts
   * const options: Partial<CountersignApiOptions> = { eventStreams: { perCaller: 5, total: 200 } };
   * ```
   */
  eventStreams?: EventStreamLimits;
  /**
   * The content store your workers keep large tool outputs in (`createWorker`'s `contentStore`):
   * with it, whoever may read a run reads those outputs whole (`GET /api/runs/:runId/outputs/:ref`,
   * the inbox's "Show output"). Without it, that route answers 404 `no_content_store` and a run
   * shows only each stored output's size and reference.
   *
   * @example
   * ```ts
   * import { countersignRouter } from 'countersign/api';
   * import { fileContentStore } from 'countersign';
   *
   * // The very store the workers were given.
   * const contentStore = fileContentStore('/var/lib/countersign/content');
   * app.use(
   *   '/approvals',
   *   countersignRouter({ client, agents, approvers, signingSecret, publicUrl, contentStore }),
   * );
   * ```
   */
  contentStore?: ContentStore;
  /**
   * The payload codec your workers encrypt with (`aesGcmCodec`), for the codec endpoint only
   * (`POST /api/codec/decode` and `/encode`, the remote codec protocol the Temporal Web UI and the
   * `temporal` CLI speak). The API reads runs through `client`, so create that client with the same
   * codec (`dataConverter: { payloadCodecs: [payloadCodec] }`): given a codec and a client without
   * any, the API refuses to start. Without it the codec endpoint answers 404 `no_payload_codec`.
   *
   * @example
   * ```ts
   * import { Client } from '@temporalio/client';
   * import { aesGcmCodec, loadPayloadKeys } from 'countersign';
   * import { countersignRouter } from 'countersign/api';
   *
   * const payloadCodec = aesGcmCodec(loadPayloadKeys(process.env)!);
   * const client = new Client({ connection, dataConverter: { payloadCodecs: [payloadCodec] } });
   * app.use(
   *   '/approvals',
   *   countersignRouter({ client, payloadCodec, agents, approvers, signingSecret, publicUrl }),
   * );
   * ```
   */
  payloadCodec?: PayloadCodec;
  /**
   * Browser origins allowed to call the codec endpoint (CORS, with credentials): the Temporal Web
   * UI's, such as `https://temporal.example.com` (scheme, host and port, no path; no `*`). A
   * preflight from any other origin is a 403. The CLI needs none.
   *
   * @example
   * ```ts
   * const options: Partial<CountersignApiOptions> = {
   *   codecCorsOrigins: ['https://temporal.example.com', 'http://localhost:8233'],
   * };
   * ```
   */
  codecCorsOrigins?: string[];
  /**
   * The roles whose holders may use the codec endpoint: `['admin']` by default. A codec request
   * names no run, and whoever decodes through it can read any run's payloads the Temporal Web UI
   * shows them, so by default only those who may read every run may.
   *
   * @example
   * ```ts
   * const options: Partial<CountersignApiOptions> = { codecRoles: ['admin', 'sre'] };
   * ```
   */
  codecRoles?: string[];
  /**
   * The keys that seal the secrets people supply (a password typed into the inbox, the CLI or a
   * REST call) before any reaches the run: the workers' `secretKeys`. Without them the API refuses
   * a secret with `501 secret_input_unavailable`.
   *
   * @example
   * ```ts
   * import { loadSecretKeys } from 'countersign';
   *
   * const options: Partial<CountersignApiOptions> = { secretKeys: loadSecretKeys(process.env) };
   * ```
   */
  secretKeys?: KeySet;
  /**
   * Slack's buttons (the notifier's `slack` option posts them): with it, `POST /slack/interactions`
   * takes the clicks, as the Slack app's interactivity URL (`<publicUrl>/slack/interactions`).
   * Without it, that path is a 404.
   */
  slack?: SlackRouterOptions;
}

/** The options with every default filled in: what the routes read. */
export interface ApiOptions extends CountersignApiOptions {
  namespace: string;
  /** Seals supplied secrets, when the API holds secret keys. */
  sealer?: SecretSealer;
  taskQueue: string;
  defaultModel: string;
  workerWaitMs: number;
  authenticate: Authenticate;
  findApprover: FindApprover;
}

/** Fills in the defaults, and the approvers file's authentication when no hook is given. */
export function resolveApiOptions(
  options: CountersignApiOptions,
  tokenAuth: (approvers: ApproverConfig[]) => Authenticate,
): ApiOptions {
  if (!options.authenticate && !options.approvers)
    throw new TypeError('countersign: give the API `authenticate` (your own auth) or `approvers` (tokens)');
  if (options.payloadCodec && options.client.options.loadedDataConverter.payloadCodecs.length === 0)
    throw new TypeError(
      'countersign: the API was given a payloadCodec, and its client none: create the client with dataConverter: { payloadCodecs: [payloadCodec] } so it reads encrypted runs',
    );
  const approvers = options.approvers ?? [];
  return {
    ...options,
    // Sub-agents' runs are read, decided and started by the same rules as any agent's.
    agents: withSubAgents(options.agents),
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    defaultModel: options.defaultModel ?? DEFAULT_MODEL,
    workerWaitMs: options.workerWaitMs ?? WORKER_WAIT_MS,
    ...(options.secretKeys ? { sealer: secretSealer(options.secretKeys) } : {}),
    ...checkedHooks({
      authenticate: options.authenticate ?? tokenAuth(approvers),
      findApprover:
        options.findApprover ??
        ((id) => {
          const approver = approvers.find((a) => a.id === id);
          return approver && identityOf(approver);
        }),
    }),
  };
}
