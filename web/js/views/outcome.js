// @ts-check
import { h, time } from '../dom.js';

/** @typedef {import('../../types/inbox.js').ApprovalView} ApprovalView */
/** @typedef {import('../../types/inbox.js').ApprovalSummary} ApprovalSummary */
/** @typedef {import('../../types/inbox.js').RunEvent} RunEvent */
/** @typedef {import('../../types/inbox.js').UnknownAttempt} UnknownAttempt */

/**
 * An unknown outcome in words: an attempt of a tool that does not dedupe ended without the tool
 * saying how, and a person says what happened. The protocol reuses respond / approve / reject for
 * the answers, whose usual words ("Approve", "Reject") would mislead here, so every view that
 * shows such an approval or its answers takes its words from this module.
 */

export const OUTCOME_BADGE = 'Outcome unknown';

export function outcomeBadge() {
  return h('span', { class: 'badge badge-outcome' }, OUTCOME_BADGE);
}

/** What each decision means for an outcome approval, as the buttons, the toast and the audit say it. */
export const OUTCOME_ANSWERS = /** @type {Record<string, string>} */ ({
  respond: 'It happened',
  approve: 'It did not happen — run it again',
  reject: 'It failed',
});

/** What the toast says once an answer is taken. */
export const OUTCOME_DONE = /** @type {Record<string, string>} */ ({
  respond: 'Reported as happened',
  approve: 'Running it again',
  reject: 'Marked failed',
});

/** How an outcome approval ended, as its outcome section and the lists say it. */
export const OUTCOME_HOW = /** @type {Record<string, string>} */ ({
  responded: 'Reported as happened',
  approved: 'Run again',
  rejected: 'Marked failed',
  expired: 'Marked failed: nobody answered by the deadline',
  cancelled: 'Cancelled',
});

/**
 * The settled status of an outcome approval, for the audit trail and the transcript.
 * @param {string} status
 * @param {string[]} [by]
 */
export function settledWords(status, by = []) {
  const who = by.length ? by.join(', ') : 'a person';
  if (status === 'responded') return `reported as happened by ${who}`;
  if (status === 'approved') return `run again by ${who}`;
  if (status === 'rejected') return `marked failed by ${who}`;
  if (status === 'expired') return 'marked failed: nobody answered by the deadline';
  if (status === 'pending') return 'waiting for someone to say what happened';
  return status;
}

/**
 * The last step the tool reported, with when; or that it reported none.
 * @param {{ step: string, at?: string } | undefined} progress
 */
function lastStep(progress) {
  if (!progress) return 'no progress reported';
  return [h('q', {}, progress.step), ' at ', time(progress.at)];
}

/**
 * Attempt, start, worker and last step in one line, for inbox cards.
 * @param {UnknownAttempt | undefined} attempt
 */
export function attemptLine(attempt) {
  if (!attempt) return null;
  return h(
    'span',
    { class: 'attempt-line' },
    `Attempt ${attempt.attempt}`,
    attempt.startedAt ? [' started ', time(attempt.startedAt)] : null,
    attempt.worker ? ` on ${attempt.worker}` : null,
    ' · last step: ',
    lastStep(attempt.progress),
  );
}

/**
 * Everything known of the attempt, for the approval page.
 * @param {UnknownAttempt | undefined} attempt
 */
export function attemptFacts(attempt) {
  if (!attempt) return h('p', { class: 'muted' }, 'Nothing is known of the attempt.');
  /** @type {[string, import('../../types/inbox.js').Child][]} */
  const rows = [
    ['Attempt', String(attempt.attempt)],
    ['Started', attempt.startedAt ? time(attempt.startedAt) : 'not known'],
    ['Worker', attempt.worker ?? 'not known'],
    ['Last step reported', lastStep(attempt.progress)],
    ['How it ended', attempt.reason],
  ];
  return h(
    'dl',
    { class: 'facts attempt-facts', 'aria-label': 'The attempt' },
    rows.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
  );
}

/**
 * A `tool.unknown` event of the run's log as a sentence.
 * @param {RunEvent} event
 */
export function unknownSentence(event) {
  /** @type {Record<string, any>} */
  const d = event.data && typeof event.data === 'object' ? event.data : {};
  return [
    `Outcome of ${event.tool ?? 'the tool'} unknown: ${d.reason ?? 'the attempt ended without saying how'}; attempt ${d.attempt ?? '?'}`,
    typeof d.startedAt === 'string' ? [' started ', time(d.startedAt)] : null,
    typeof d.worker === 'string' ? ` on ${d.worker}` : null,
    ', last step: ',
    d.progress && typeof d.progress.step === 'string' ? lastStep(d.progress) : 'no progress reported',
  ];
}

/**
 * Beside a tool's result in the transcript, one line per outcome approval its call went through,
 * so a result a person reported, or a failure they declared, is never read as the tool's own word.
 * @param {ApprovalSummary} a
 */
export const outcomeMarkLine = (a) => [
  outcomeBadge(),
  ` after attempt ${a.attempt?.attempt ?? '?'}: `,
  h('strong', {}, settledWords(a.status, a.outcome?.by)),
];
