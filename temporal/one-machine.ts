/**
 * The settings `npm start` and the benchmark give `temporal server start-dev`, chosen for one
 * machine by measurement (bench/README.md, "The embedded server's settings"). The tests keep the
 * server's defaults, as a cluster has them, so that nothing passes only because a setting was
 * raised.
 *
 * @example
 * ```ts
 * import { ONE_MACHINE_SERVER, startTemporalDevServer } from 'countersign/dev';
 *
 * const server = await startTemporalDevServer({ executable, dbFilename: 'temporal.db', ...ONE_MACHINE_SERVER });
 * ```
 */
export const ONE_MACHINE_SERVER = {
  dynamicConfig: {
    // The one history shard reads the queue that hands workflow tasks to the worker at most this
    // many times a second (20 by default): each of a decision's workflow tasks waited for a read.
    'history.transferProcessorMaxPollRPS': 1000,
    // The same for the queue that writes the lists (visibility): the inbox and a REST client see a
    // run wait, or finish, that much sooner.
    'history.visibilityProcessorMaxPollRPS': 1000,
  },
  sqlitePragmas: {
    // A write-ahead log synced at each commit: one sync per commit instead of the rollback
    // journal's several, and a power loss still loses nothing the server acknowledged.
    journal_mode: 'wal',
    synchronous: 'full',
  },
} as const satisfies { dynamicConfig: Record<string, number>; sqlitePragmas: Record<string, string> };
