import { brandError, CountersignError } from './countersign-error.js';

/**
 * An error the `countersign` CLI reports as one clear line (plus field errors) and a non-zero exit.
 * Its code is `cli_error`.
 *
 * @example
 * ```ts
 * throw new CliError('HTTP 404: no approval r1.3.', ['  /args/amount: too big']);
 * ```
 */
export class CliError extends CountersignError<'cli_error'> {
  static {
    brandError(this, 'CliError');
  }

  constructor(
    message: string,
    readonly details: string[] = [],
  ) {
    super('cli_error', message);
  }
}
