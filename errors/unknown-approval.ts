import { brandError, CountersignError } from './countersign-error.js';

/**
 * No run (or no approval in it) answers to this tracking id: thrown by `sendDecision`. Its code is
 * `unknown_approval`, as the API's answer to the same case.
 *
 * @example
 * ```ts
 * try {
 *   await sendDecision(client, signal);
 * } catch (err) {
 *   if (err instanceof UnknownApprovalError) console.error(`no approval ${err.trackingId}`);
 *   else throw err;
 * }
 * ```
 */
export class UnknownApprovalError extends CountersignError<'unknown_approval'> {
  static {
    brandError(this, 'UnknownApprovalError');
  }

  constructor(readonly trackingId: string) {
    super('unknown_approval', `no approval ${trackingId}`);
  }
}
