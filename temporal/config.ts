import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * One Temporal connection config for the worker, the API, the CLI and the tests, read from the
 * environment variables Temporal's own CLI uses. With TEMPORAL_ADDRESS unset, callers start the
 * Temporal dev server (`temporal server start-dev`) instead.
 */
const Env = z.object({
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  TEMPORAL_TLS: z.enum(['true', 'false', '1', '0']).optional(),
  TEMPORAL_TLS_CLIENT_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_KEY_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('countersign'),
});

/**
 * TLS for a Temporal connection, in the SDK's own shape: the server's CA and name, and a client
 * certificate for mTLS.
 *
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * import { Connection } from '@temporalio/client';
 * import type { TlsSettings } from 'countersign';
 *
 * const tls: TlsSettings = {
 *   clientCertPair: { crt: readFileSync('client.pem'), key: readFileSync('client.key') },
 * };
 * const connection = await Connection.connect({ address: 'payments.a1b2c.tmprl.cloud:7233', tls });
 * ```
 */
export interface TlsSettings {
  serverNameOverride?: string;
  serverRootCACertificate?: Buffer;
  clientCertPair?: { crt: Buffer; key: Buffer };
}

/**
 * Where Temporal is and how to reach it, as `loadTemporalConfig` reads it; `connectionOptions` turns
 * it into what `connect` takes.
 *
 * @example
 * ```ts
 * import { NativeConnection } from '@temporalio/worker';
 * import { connectionOptions, loadTemporalConfig, type TemporalConfig } from 'countersign';
 * import { createWorker } from 'countersign/worker';
 *
 * const config: TemporalConfig = loadTemporalConfig(process.env);
 * if (!config.address) throw new Error('set TEMPORAL_ADDRESS');
 * const connection = await NativeConnection.connect(
 *   connectionOptions({ ...config, address: config.address }),
 * );
 * const { namespace, taskQueue } = config;
 * const worker = await createWorker({ connection, namespace, taskQueue, agents, model });
 * ```
 */
export interface TemporalConfig {
  /** Absent: start `temporal server start-dev`. */
  address?: string;
  namespace: string;
  taskQueue: string;
  apiKey?: string;
  tls?: TlsSettings | boolean;
}

/**
 * Temporal's connection settings from environment variables as Temporal's own CLI names them
 * (`TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`, `TEMPORAL_TLS*`), read from the
 * `env` it is given: pass `process.env` where your service takes its settings from there.
 *
 * @example
 * ```ts
 * const config = loadTemporalConfig(process.env);
 * const connection = await Connection.connect(connectionOptions({ ...config, address: config.address ?? 'localhost:7233' }));
 * ```
 */
export function loadTemporalConfig(env: NodeJS.ProcessEnv): TemporalConfig {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    throw new Error(`invalid Temporal settings: ${z.prettifyError(parsed.error)}`);
  }
  const e = parsed.data;
  const certPath = e.TEMPORAL_TLS_CLIENT_CERT_PATH;
  const keyPath = e.TEMPORAL_TLS_CLIENT_KEY_PATH;
  if (Boolean(certPath) !== Boolean(keyPath)) {
    throw new Error('TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH go together');
  }
  const tlsWanted =
    e.TEMPORAL_TLS === 'true' ||
    e.TEMPORAL_TLS === '1' ||
    Boolean(certPath) ||
    Boolean(e.TEMPORAL_TLS_SERVER_CA_CERT_PATH);
  const tlsRefused = e.TEMPORAL_TLS === 'false' || e.TEMPORAL_TLS === '0';
  let tls: TemporalConfig['tls'];
  if (tlsWanted && !tlsRefused) {
    const settings: TlsSettings = {};
    if (e.TEMPORAL_TLS_SERVER_NAME) settings.serverNameOverride = e.TEMPORAL_TLS_SERVER_NAME;
    if (e.TEMPORAL_TLS_SERVER_CA_CERT_PATH)
      settings.serverRootCACertificate = readFileSync(e.TEMPORAL_TLS_SERVER_CA_CERT_PATH);
    if (certPath && keyPath)
      settings.clientCertPair = { crt: readFileSync(certPath), key: readFileSync(keyPath) };
    tls = Object.keys(settings).length > 0 ? settings : true;
  } else if (e.TEMPORAL_API_KEY && !tlsRefused) {
    // Temporal Cloud API keys travel over TLS; the CLI turns it on implicitly too.
    tls = true;
  }
  return {
    address: e.TEMPORAL_ADDRESS,
    namespace: e.TEMPORAL_NAMESPACE,
    taskQueue: e.TEMPORAL_TASK_QUEUE,
    apiKey: e.TEMPORAL_API_KEY,
    tls,
  };
}

/**
 * Options shared by `Connection.connect` (client) and `NativeConnection.connect` (worker).
 *
 * @example
 * ```ts
 * import { Client, Connection } from '@temporalio/client';
 * import { NativeConnection } from '@temporalio/worker';
 * import { connectionOptions, loadTemporalConfig } from 'countersign';
 *
 * const config = loadTemporalConfig(process.env);
 * const options = connectionOptions({ ...config, address: config.address ?? 'localhost:7233' });
 * const client = new Client({ connection: await Connection.connect(options), namespace: config.namespace });
 * const workerConnection = await NativeConnection.connect(options);
 * ```
 */
export function connectionOptions(config: TemporalConfig & { address: string }) {
  return {
    address: config.address,
    tls: config.tls,
    apiKey: config.apiKey,
  };
}
