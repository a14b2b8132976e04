// @ts-check
import { api, ApiError } from '../api.js';
import { diffArgs } from '../args-editor.js';

/** How long typing must pause before the run is asked: one question per pause, not per key. */
const PAUSE_MS = 250;

/** @typedef {Partial<import('../../types/inbox.js').EditPreview> & { refused?: string }} RulePreview */

/**
 * Asks the run what the edit being typed would need, as it will judge the edit: the rule that puts
 * it in its tier, in words, the requirements of that tier, and a warning for any no approver who
 * exists can meet. `show` hears `{ requirements, warnings }`, or `{ refused }` with the run's words
 * for an edit it would refuse, or null for the proposal as it stands; only the latest edit's answer
 * is shown. A run that cannot answer now (a worker away) leaves the rule as the approval states it.
 * @param {import('../../types/inbox.js').ApprovalView} a
 * @param {(answer: RulePreview | null) => void} show
 * @returns {(args: import('../../types/inbox.js').JsonObject) => void}
 */
export function rulePreview(a, show) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let asked = 0;
  return (args) => {
    clearTimeout(timer);
    const mine = ++asked;
    if (diffArgs(a.args, args).length === 0) {
      show(null);
      return;
    }
    timer = setTimeout(async () => {
      const answer = await api(`api/approvals/${encodeURIComponent(a.trackingId)}/preview`, {
        method: 'POST',
        body: { args },
      }).then(
        ({ data }) => data,
        (err) => (err instanceof ApiError && err.status === 400 ? { refused: err.message } : null),
      );
      if (mine === asked) show(answer);
    }, PAUSE_MS);
  };
}
