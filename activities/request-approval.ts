import { ApplicationFailure, Context } from '@temporalio/activity';
import { whileHeartbeating } from './keep-alive.js';
import type { ApprovalView } from '../protocol/index.js';
import type { EditNote, NotifiedTicket, PostedMessage, ReminderNote } from '../workflows/activity-types.js';
import type { Notifier } from './notifier.js';

/**
 * Sends the notifications for an approval and returns at once. The tracking id comes from the
 * workflow, so a retried attempt never mints a second one; notifications an earlier attempt
 * delivered, or gave up on, are carried in heartbeat details and skipped. The messages posted (by
 * their ids) are answered, or carried in the failure when the last attempt fails, so the run can
 * update them.
 */
export function createRequestApproval(notifier: Notifier | undefined) {
  return async function requestApproval(
    approval: ApprovalView,
    edit?: EditNote,
    reminder?: ReminderNote,
  ): Promise<NotifiedTicket> {
    const ticket: NotifiedTicket = { status: 'pending', trackingId: approval.trackingId };
    if (!notifier) return ticket;
    const context = Context.current();
    const previous = context.info.heartbeatDetails as
      | { sent?: string[]; posted?: PostedMessage[] }
      | undefined;
    const sent = [...(previous?.sent ?? [])];
    const posted = [...(previous?.posted ?? [])];
    const details = () => ({ sent, ...(posted.length > 0 ? { posted } : {}) });
    try {
      await whileHeartbeating(
        () =>
          notifier.notify(
            approval,
            {
              sent,
              onSent(key) {
                sent.push(key);
                context.heartbeat(details());
              },
              onFailed(key, reason) {
                context.log.warn('notification failed for good; not tried again', {
                  trackingId: approval.trackingId,
                  key,
                  reason,
                });
                sent.push(key);
                context.heartbeat(details());
              },
              onPosted(message) {
                posted.push({ channel: message.channel, ts: message.ts });
                context.heartbeat(details());
              },
            },
            edit,
            reminder,
          ),
        details,
      );
    } catch (err) {
      if (posted.length === 0) throw err;
      throw ApplicationFailure.create({
        message: err instanceof Error ? err.message : String(err),
        details: [{ posted }],
        cause: err instanceof Error ? err : undefined,
      });
    }
    return posted.length > 0 ? { ...ticket, posted } : ticket;
  };
}
