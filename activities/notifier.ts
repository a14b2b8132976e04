import type { ApprovalView } from '../protocol/index.js';

/**
 * Tells the people who may decide that an approval waits for them (email, webhook). The
 * requestApproval activity calls it; implementations live in notify/.
 *
 * Activity retries must not send twice: `sent` lists the keys of notifications already delivered
 * by earlier attempts (carried in the activity's heartbeat details), and `onSent` is called after
 * each delivery so the next attempt skips it.
 */
export interface Notifier {
  notify(
    approval: ApprovalView,
    progress: { sent: readonly string[]; onSent(key: string): void },
  ): Promise<void>;
}
