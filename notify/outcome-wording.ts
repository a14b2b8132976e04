import type { ApprovalStatus, UnknownAttempt } from '../protocol/index.js';

/** How an approval ended, in words: the same on the pages its email links open and on Slack's cards. */
export const SETTLED_HOW: Record<ApprovalStatus, string> = {
  pending: 'Pending',
  approved: 'Approved',
  edited: 'Approved with edits',
  rejected: 'Rejected',
  responded: 'Answered',
  expired: 'Expired',
  cancelled: 'Cancelled',
};

/**
 * The words an outcome approval (kind `outcome`: nobody knows whether a call happened) is answered
 * in, the same in the email and on the pages its links open. `approve` and `reject` are what the
 * links do; `respond` needs a result, so it is given in the inbox.
 */
export const OUTCOME_ANSWER = {
  approve: 'It did not happen: run it again',
  reject: 'It failed',
  respond: 'It happened',
} as const;

/** Why the person is asked, said plainly. */
export const OUTCOME_WHY =
  'Its attempt ended without the tool saying how. It is not run again unless someone says it did not happen.';

/** Silence is not consent: what a deadline without an answer means. */
export const OUTCOME_DEADLINE =
  'With no answer by the deadline, the call counts as failed; it is never run again.';

/** What each answer does, for the page that confirms it. */
export const OUTCOME_EFFECT = {
  approve:
    'The tool runs once more with the same arguments (and the same idempotency key). If that attempt ends without saying how too, you are asked again.',
  reject: 'The agent is told the call failed; nothing runs again.',
} as const;

/**
 * What is known of the attempt, one fact a line, as raw text: each channel makes it visible
 * (control characters, line breaks) its own way, since the step and the reason come from the tool.
 */
export function attemptFacts(attempt: UnknownAttempt | undefined): [string, string][] {
  if (!attempt) return [['Attempt', 'nothing is known of it']];
  const facts: [string, string][] = [['Attempt', String(attempt.attempt)]];
  if (attempt.startedAt) facts.push(['Started', attempt.startedAt]);
  if (attempt.worker) facts.push(['Worker', attempt.worker]);
  facts.push([
    'Last step',
    attempt.progress ? `${attempt.progress.step} (at ${attempt.progress.at})` : 'none reported',
  ]);
  facts.push(['Why unknown', attempt.reason]);
  return facts;
}
