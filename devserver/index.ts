import * as grpc from '@grpc/grpc-js';
import { Engine } from './engine.js';
import { installSyncGzip } from './grpc-gzip.js';
import { addService } from './grpc-service.js';
import { operatorServiceHandlers } from './rpc/operator-service.js';
import { workflowServiceHandlers } from './rpc/workflow-service.js';
import { SearchAttributeRegistry } from './search-attributes.js';
import { SqliteStore } from './store/sqlite.js';

export interface DevServerOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** ':memory:' (the default) or a file path; a file survives restarts. */
  dbPath?: string;
  /** Log internal errors to stderr. */
  log?: boolean;
}

export interface DevServer {
  address: string;
  port: number;
  stop(): Promise<void>;
}

const MAX_MESSAGE_BYTES = 128 * 1024 * 1024;

/**
 * Starts the embedded Temporal server: WorkflowService and OperatorService over gRPC,
 * state in SQLite. Any namespace name is accepted; `default` needs no registration.
 */
export async function startDevServer(opts: DevServerOptions = {}): Promise<DevServer> {
  installSyncGzip();
  const host = opts.host ?? '127.0.0.1';
  const log = opts.log ?? false;
  const store = new SqliteStore(opts.dbPath ?? ':memory:');
  const registry = new SearchAttributeRegistry(store, store.loadSearchAttributes());
  const engine = new Engine(store, registry);
  engine.load();

  const server = new grpc.Server({
    'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
    'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  });
  const whenDurable = (cb: (err?: Error) => void) => engine.whenDurable(cb);
  addService(
    server,
    'temporal.api.workflowservice.v1.WorkflowService',
    workflowServiceHandlers(engine),
    log,
    whenDurable,
  );
  addService(
    server,
    'temporal.api.operatorservice.v1.OperatorService',
    operatorServiceHandlers(engine),
    log,
    whenDurable,
  );

  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${opts.port ?? 0}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    );
  });

  let stopped: Promise<void> | undefined;
  return {
    address: `${host}:${port}`,
    port,
    stop() {
      stopped ??= (async () => {
        engine.stop();
        await new Promise<void>((resolve) => {
          const force = setTimeout(() => server.forceShutdown(), 2000);
          server.tryShutdown(() => {
            clearTimeout(force);
            resolve();
          });
        });
        engine.flush();
        store.close();
      })();
      return stopped;
    },
  };
}
