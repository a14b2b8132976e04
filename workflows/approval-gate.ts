import { condition, isCancellation, log } from '@temporalio/workflow';
import type { ApprovalView } from '../protocol/index.js';
import { requestApproval } from './activities.js';
import type { ApprovalBook, ApprovalRequest } from './approval-book.js';
import type { ApprovalRecord } from './approval-record.js';
import type { ReminderNote } from './activity-types.js';
import { postedBy } from './posted-messages.js';
import { ReminderClock } from './reminders.js';
import { isPatched, REVISIONS_PATCH, REMINDERS_PATCH } from './patches.js';

/**
 * Asks a human and waits, durably, for the decision or the deadline. Decisions are applied by the
 * signal handler; this only watches the approval's status beside a timer. Returns the settled view.
 */
export async function awaitHumanDecision(
  book: ApprovalBook,
  request: ApprovalRequest,
): Promise<ApprovalView> {
  // A turn resumed after a continue-as-new waits on the approval it had opened; its people were told.
  const resumed = book.resume(request);
  const record = resumed ?? book.open(request);
  const view = record.view;
  // Notifications go out beside the wait: the deadline runs from the request, and a slow mail
  // server never holds back a decision taken in the inbox.
  if (!resumed) void notify(book, record);
  // Runs recorded before revisions waited on the status alone.
  const revisions = isPatched(REVISIONS_PATCH);
  const reminders = book.remindersFor(request);
  const clock = reminders.length > 0 && isPatched(REMINDERS_PATCH) ? new ReminderClock(reminders) : undefined;
  for (;;) {
    const { deadline, revision } = view;
    const remaining = Date.parse(deadline) - Date.now();
    // The timer runs to the next reminder, if one comes first; a decision cancels it.
    const reminder = clock?.due(view, Date.now());
    const wait = reminder ? reminder.at - Date.now() : remaining;
    // An edit makes a new revision, maybe with an earlier deadline: wait again from there.
    const changed = () =>
      view.status !== 'pending' || (revisions && (view.deadline !== deadline || view.revision !== revision));
    if (remaining > 0 && (await condition(changed, wait))) {
      if (view.status !== 'pending') return view;
      // Everyone still needed is told again, with links for the new revision.
      if (view.revision !== revision) void notify(book, record);
      continue;
    }
    if (view.status !== 'pending') return view;
    if (clock && reminder) {
      clock.sent();
      void notify(book, record, reminder.note);
      continue;
    }
    const onTimeout = view.onTimeout;
    if (onTimeout.action === 'escalate' && !view.escalated) {
      book.escalate(record, onTimeout);
      void notify(book, record);
      continue;
    }
    book.expire(record);
    return view;
  }
}

/**
 * Best effort, and never rejects: the approval waits in the inbox even if every notification
 * failed, and a cancelled run simply abandons notifications in flight. The messages they posted
 * are kept, to update as the approval changes.
 */
async function notify(book: ApprovalBook, record: ApprovalRecord, reminder?: ReminderNote): Promise<void> {
  const view = record.view;
  const { round, edit } = book.messages.begin(record);
  book.notifying++;
  try {
    // A reminder shows the proposal as it is; the edit that made it was told when it was made.
    const ticket = await (reminder
      ? requestApproval(view, undefined, reminder)
      : edit
        ? requestApproval(view, edit)
        : requestApproval(view));
    book.messages.posted(record, round, postedBy(ticket));
  } catch (err) {
    if (!isCancellation(err)) {
      log.warn('notifications failed', { trackingId: view.trackingId, error: String(err) });
      book.messages.posted(record, round, postedBy(err));
    }
  } finally {
    book.notifying--;
  }
}
