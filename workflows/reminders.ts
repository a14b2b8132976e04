import type { ApprovalView, Reminder, ToolSpec } from '../protocol/index.js';
import type { ReminderNote } from './activity-types.js';
import type { ApprovalRequest } from './approval-book.js';

/**
 * The reminders of an approval: those its request names (a tier's), else its tool's policy's;
 * earliest first, numbered from 1.
 */
export function remindersOf(request: ApprovalRequest, tools: ReadonlyMap<string, ToolSpec>): Reminder[] {
  const reminders = request.remind ?? tools.get(request.tool)?.approval?.remind ?? [];
  return [...reminders].sort((a, b) => b.beforeDeadlineSeconds - a.beforeDeadlineSeconds);
}

/** The next reminder due: its note for the notifier, and when it is due (epoch ms). */
export interface DueReminder {
  note: ReminderNote;
  at: number;
}

/**
 * Which reminders of one approval are still to come. They count back from the approval's current
 * deadline; a new revision (an edit, an escalation) or a new deadline starts the count again, and
 * a reminder already past when it does is skipped: its people were just notified. A run that
 * continues as new starts the count again too, so a reminder sent before is past and not repeated.
 */
export class ReminderClock {
  private counting = '';
  private next = 0;

  constructor(private readonly reminders: Reminder[]) {}

  /** The next reminder for the approval as it is now, or undefined when none is left. */
  due(view: ApprovalView, now: number): DueReminder | undefined {
    const deadline = Date.parse(view.deadline);
    const counting = `${view.revision}@${view.deadline}`;
    if (counting !== this.counting) {
      this.counting = counting;
      this.next = this.reminders.findIndex((r) => deadline - r.beforeDeadlineSeconds * 1000 > now);
      if (this.next < 0) this.next = this.reminders.length;
    }
    const reminder = this.reminders[this.next];
    if (!reminder) return undefined;
    const { beforeDeadlineSeconds } = reminder;
    return {
      note: { number: this.next + 1, beforeDeadlineSeconds },
      at: deadline - beforeDeadlineSeconds * 1000,
    };
  }

  /** The reminder `due` answered is sent: the next one comes after it. */
  sent(): void {
    this.next++;
  }
}
