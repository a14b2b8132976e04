import { ApplicationFailure } from '@temporalio/workflow';
import type { DecisionOutcome } from '../protocol/index.js';
import type { ApprovalBook } from './approval-book.js';

/**
 * The decision update's handler: the signal's own path (`decide`), then the outcome kept under the
 * request id, which is the first one when a signal or an update with that id was taken before.
 * Registering it adds no command, so histories recorded before it replay unchanged.
 */
export function decideByUpdate(book: ApprovalBook, raw: unknown): DecisionOutcome {
  book.decide(raw);
  const requestId =
    typeof raw === 'object' && raw !== null ? (raw as { requestId?: unknown }).requestId : null;
  const outcome = typeof requestId === 'string' ? book.outcome(requestId) : null;
  if (outcome) return outcome;
  // `decide` recorded the refusal; with no request id there is no outcome to answer with.
  throw ApplicationFailure.nonRetryable('a decision without a request id is refused', 'decision_not_allowed');
}
