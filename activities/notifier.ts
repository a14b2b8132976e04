import type { ApprovalView } from '../protocol/index.js';
import type { EditNote, MessagesUpdate, PostedMessage, ReminderNote } from '../workflows/activity-types.js';

/**
 * Where a notifier's deliveries stand, kept across the activity's retries.
 *
 * @example
 * ```ts
 * import type { DeliveryProgress } from 'countersign/worker';
 *
 * async function deliverOnce(key: string, progress: DeliveryProgress, send: () => Promise<void>) {
 *   if (progress.sent.includes(key)) return; // an earlier attempt delivered it
 *   await send();
 *   progress.onSent(key);
 * }
 * ```
 */
export interface DeliveryProgress {
  sent: readonly string[];
  onSent(key: string): void;
  /** A delivery that failed for good, and why (no secrets): logged, and skipped by retries. */
  onFailed(key: string, reason: string): void;
}

/**
 * Tells the people who may decide that an approval waits for them (email, webhook). The
 * requestApproval activity calls it; implementations live in notify/.
 *
 * Activity retries must not send twice: `sent` lists the keys of notifications earlier attempts
 * are done with (carried in the activity's heartbeat details), and `onSent` is called after each
 * delivery so the next attempt skips it. One that can never go through (no such mailbox) is given
 * to `onFailed`, which logs it, and is not tried again. Deliver each on its own, so one that fails
 * holds back none of the others; then throw if any may yet go through, and the activity retries.
 * A message it can change later (a Slack card) is reported with `onPosted`: the run keeps its ids
 * and hands them to `update` when the approval settles or a new proposal replaces it.
 *
 * @example
 * ```ts
 * import { createWorker, type Notifier } from 'countersign/worker';
 *
 * const slack: Notifier = {
 *   async notify(approval, { sent, onSent }) {
 *     const key = `slack:r${approval.revision}`; // an edit or an escalation notifies again
 *     if (sent.includes(key)) return;
 *     await postToSlack('#approvals', `${approval.description}: ${approval.trackingId}`);
 *     onSent(key);
 *   },
 * };
 * const worker = await createWorker({ connection, agents: [support], model, notifier: slack });
 * ```
 */
export interface Notifier {
  notify(
    approval: ApprovalView,
    progress: DeliveryProgress & {
      /** A message was posted that `update` can change later (its ids only). */
      onPosted(message: PostedMessage): void;
    },
    /** The edit that made this revision, when one did. */
    edit?: EditNote,
    /**
     * A reminder before the deadline, to those still needed: deliver under keys of its own (one
     * reminder never stands for another, nor for the first notification).
     */
    reminder?: ReminderNote,
  ): Promise<void>;
  /**
   * Changes the messages `notify` posted to say what became of the approval. Deliveries are keyed
   * and retried as `notify`'s are.
   */
  update?(update: MessagesUpdate, progress: DeliveryProgress): Promise<void>;
}
