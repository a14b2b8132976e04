import { Command } from 'commander';
import { startDevServer } from './index.js';

const program = new Command()
  .name('devserver')
  .description(
    'Embedded Temporal development server (WorkflowService + OperatorService over gRPC, SQLite storage)',
  )
  .option('--port <port>', 'port to listen on (0 picks a free one)', '7233')
  .option('--host <host>', 'interface to bind', '127.0.0.1')
  .option('--db <file>', "SQLite database file, or ':memory:'", ':memory:')
  .option('--log', 'log internal errors to stderr', false)
  .parse();

const opts = program.opts<{ port: string; host: string; db: string; log: boolean }>();
const port = Number(opts.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`devserver: invalid --port ${opts.port}`);
  process.exit(2);
}

const server = await startDevServer({ port, host: opts.host, dbPath: opts.db, log: opts.log });
console.log(`devserver listening on ${server.address}`);

let stopping = false;
const shutdown = () => {
  if (stopping) return;
  stopping = true;
  server.stop().then(
    () => process.exit(0),
    (err) => {
      console.error('devserver: stop failed', err);
      process.exit(1);
    },
  );
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
// Started by a parent with an IPC channel (a test, a supervisor): go when the parent goes.
process.on('disconnect', shutdown);
