import { brandError, CountersignError } from './countersign-error.js';

/**
 * The port the server was to listen on is held by another process. Where it picked the ports
 * itself, `startTemporalDevServer` picks again (five tries) before it rejects with this. Its code is
 * `dev_server_port_taken`.
 *
 * @example
 * ```ts
 * import { DevServerPortTaken, startTemporalDevServer } from 'countersign/dev';
 *
 * try {
 *   await startTemporalDevServer({ executable, port: 7233 });
 * } catch (err) {
 *   if (!(err instanceof DevServerPortTaken)) throw err;
 *   console.log('7233 is taken: is a Temporal already running?');
 * }
 * ```
 */
export class DevServerPortTaken extends CountersignError<'dev_server_port_taken'> {
  static {
    brandError(this, 'DevServerPortTaken');
  }

  constructor(message: string) {
    super('dev_server_port_taken', message);
  }
}
