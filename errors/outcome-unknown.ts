import { brandError, CountersignError } from './countersign-error.js';

/**
 * Thrown by a tool's `execute` when it cannot tell whether it acted: the request went out and no
 * answer came back (a timeout after sending, a connection dropped mid-reply). For a tool that is
 * not `idempotent`, the run then asks a person what happened instead of failing or retrying the
 * call; for one that is, the call is attempted again like any failure. Its code is `outcome_unknown`.
 *
 * @example
 * ```ts
 * import { OutcomeUnknownError, defineTool } from 'countersign';
 *
 * const send = defineTool({
 *   name: 'send_invoice',
 *   description: 'Email an invoice.',
 *   parameters: z.object({ to: z.string(), invoiceId: z.string() }),
 *   execute: async (args, context) => {
 *     await smtp.connect();
 *     context.progress('message handed to the mail server');
 *     try {
 *       return await smtp.send(args);
 *     } catch (err) {
 *       throw new OutcomeUnknownError(`the mail server did not confirm: ${String(err)}`);
 *     }
 *   },
 * });
 * ```
 */
export class OutcomeUnknownError extends CountersignError<'outcome_unknown'> {
  static {
    brandError(this, 'OutcomeUnknownError');
  }

  constructor(message: string) {
    super('outcome_unknown', message);
  }
}
