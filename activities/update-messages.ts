import { Context } from '@temporalio/activity';
import type { MessagesUpdate } from '../workflows/activity-types.js';
import { whileHeartbeating } from './keep-alive.js';
import type { Notifier } from './notifier.js';

/**
 * Updates the messages posted for an approval to say what became of it, through the notifier's
 * `update` (nothing to do without one). Messages an earlier attempt updated, or gave up on, are
 * carried in heartbeat details and skipped.
 */
export function createUpdateMessages(notifier: Notifier | undefined) {
  return async function updateMessages(input: MessagesUpdate): Promise<void> {
    const update = notifier?.update?.bind(notifier);
    if (!update) return;
    const context = Context.current();
    const previous = context.info.heartbeatDetails as { sent?: string[] } | undefined;
    const sent = [...(previous?.sent ?? [])];
    await whileHeartbeating(
      () =>
        update(input, {
          sent,
          onSent(key) {
            sent.push(key);
            context.heartbeat({ sent });
          },
          onFailed(key, reason) {
            context.log.warn('a message update failed for good; not tried again', {
              trackingId: input.approval.trackingId,
              key,
              reason,
            });
            sent.push(key);
            context.heartbeat({ sent });
          },
        }),
      () => ({ sent }),
    );
  };
}
