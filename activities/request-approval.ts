import { Context } from '@temporalio/activity';
import { whileHeartbeating } from './keep-alive.js';
import type { ApprovalTicket, ApprovalView } from '../protocol/index.js';
import type { Notifier } from './notifier.js';

/**
 * Sends the notifications for an approval and returns at once. The tracking id comes from the
 * workflow, so a retried attempt never mints a second one; notifications an earlier attempt
 * delivered, or gave up on, are carried in heartbeat details and skipped.
 */
export function createRequestApproval(notifier: Notifier | undefined) {
  return async function requestApproval(approval: ApprovalView): Promise<ApprovalTicket> {
    if (notifier) {
      const context = Context.current();
      const previous = context.info.heartbeatDetails as { sent?: string[] } | undefined;
      const sent = [...(previous?.sent ?? [])];
      await whileHeartbeating(
        () =>
          notifier.notify(approval, {
            sent,
            onSent(key) {
              sent.push(key);
              context.heartbeat({ sent });
            },
            onFailed(key, reason) {
              context.log.warn('notification failed for good; not tried again', {
                trackingId: approval.trackingId,
                key,
                reason,
              });
              sent.push(key);
              context.heartbeat({ sent });
            },
          }),
        () => ({ sent }),
      );
    }
    return { status: 'pending', trackingId: approval.trackingId };
  };
}
