import { Client, Connection } from '@temporalio/client';
import { Command, Option } from 'commander';
import { connectionOptions, loadTemporalConfig } from '../temporal/config.js';
import { downloadHistories, type DownloadedHistory } from '../temporal/download-histories.js';
import { CliError } from './http.js';

interface DownloadOptions {
  run?: string[];
  query?: string;
  out: string;
  address?: string;
  namespace?: string;
  limit?: string;
}

/** The Temporal CLI's default, and where `npm start` runs its dev server unless the port is taken. */
const DEFAULT_ADDRESS = '127.0.0.1:7233';

/**
 * `countersign histories download`: real runs' histories into files for replay tests. It talks to
 * Temporal itself (not to the REST API), with Temporal's own variables: TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, and TEMPORAL_API_KEY / TEMPORAL_TLS_* for a cluster that needs them.
 */
export function historiesCommand(print: (text: string) => void): Command {
  const histories = new Command('histories').description(
    'record real runs for replay tests (replayHistories in countersign/testing)',
  );
  histories
    .command('download')
    .description(
      "write runs' histories as <out>/<runId>.json, the files replayHistories replays; straight from Temporal",
    )
    .option('--run <runId>', 'a run to download (repeat for more)', (id: string, ids: string[] = []) => [
      ...ids,
      id,
    ])
    .option(
      '--query <listQuery>',
      `the runs a Temporal list query matches, e.g. "CountersignAgent = 'support'"`,
    )
    .requiredOption('--out <dir>', 'the folder the files go to (created when missing)')
    .addOption(
      new Option('--address <host:port>', `Temporal's frontend (default ${DEFAULT_ADDRESS})`).env(
        'TEMPORAL_ADDRESS',
      ),
    )
    .addOption(
      new Option('--namespace <namespace>', 'the namespace (default "default")').env('TEMPORAL_NAMESPACE'),
    )
    .option('--limit <runs>', 'with --query: at most this many runs')
    .action(async (options: DownloadOptions, command: Command) => {
      const json = command.optsWithGlobals<{ json?: boolean }>().json === true;
      if ((options.run !== undefined) === (options.query !== undefined)) {
        throw new CliError('give --run <runId> (once or more) or --query <listQuery>, one of the two');
      }
      const limit = options.limit === undefined ? undefined : Number(options.limit);
      if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) {
        throw new CliError('--limit must be a positive integer');
      }
      if (limit !== undefined && !options.query) throw new CliError('--limit goes with --query');
      let config;
      try {
        // TLS and API key settings come from Temporal's own variables, as for `npm start`.
        config = loadTemporalConfig(process.env);
      } catch (error) {
        throw new CliError((error as Error).message);
      }
      const address = options.address ?? config.address ?? DEFAULT_ADDRESS;
      const namespace = options.namespace ?? config.namespace;
      let connection: Connection;
      try {
        connection = await Connection.connect({
          ...connectionOptions({ ...config, address }),
          connectTimeout: 10_000,
        });
      } catch (error) {
        throw new CliError(`cannot connect to Temporal at ${address}: ${(error as Error).message}`);
      }
      let written: DownloadedHistory[];
      try {
        written = await downloadHistories(new Client({ connection, namespace }), {
          ...(options.query !== undefined ? { query: options.query } : { runIds: options.run ?? [] }),
          outDir: options.out,
          limit,
        });
      } catch (error) {
        throw new CliError((error as Error).message);
      } finally {
        await connection.close();
      }
      if (json) {
        print(JSON.stringify({ histories: written }, null, 2));
      } else {
        for (const h of written) print(`${h.workflowId}: ${h.events} events -> ${h.file}`);
        print(
          written.length === 0
            ? `no run matched ${options.query} in namespace ${namespace} (lists lag a little behind new runs)`
            : `Wrote ${written.length} ${written.length === 1 ? 'history' : 'histories'} to ${options.out}; replay them with replayHistories('${options.out}') from countersign/testing.`,
        );
      }
      if (written.length === 0) process.exitCode = 1;
    });
  return histories;
}
