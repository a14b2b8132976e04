import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  log,
  proxyActivities,
} from '@temporalio/workflow';
import type { ApprovalView, JsonValue } from '../protocol/index.js';
import type {
  ApprovalChange,
  ChangedBy,
  CountersignActivities,
  EditNote,
  MessagesUpdate,
  PostedMessage,
} from './activity-types.js';
import type { ApprovalRecord } from './approval-record.js';
import { NOTIFY_ACTIVITY } from './activities.js';
import { diffJson } from './arg-diff.js';
import { failureMessage } from './describe.js';
import { isPatched, FOLLOW_MESSAGES_PATCH } from './patches.js';

/** Run apart from any cancellation: a cancelled run's messages are the ones to say so. */
const { updateMessages } = proxyActivities<CountersignActivities>(NOTIFY_ACTIVITY);

/** How long a run that ends waits for the updates of its messages under way. */
const ENDING_WAIT = '30 seconds';

/** The messages one notification of an approval posted. */
export interface Round {
  /** The approval as notified; dropped once a newer proposal replaced it. */
  shown?: ApprovalView;
  /** Unknown while the notification is under way. */
  messages?: PostedMessage[];
  /** What replaced the proposal they show. */
  replacedBy?: ApprovalChange;
}

/** A pending approval's messages, as the next run of the chain takes them over. */
export type CarriedMessages = { shown?: ApprovalView; messages: PostedMessage[] }[];

interface Following {
  rounds: Round[];
  /** One update after another, so each message ends as the latest one says. */
  chain: Promise<void>;
  /** The edit that made the current revision, for the notification of that revision. */
  edit?: EditNote & { revision: number };
  /** Who settled the approval, for the messages whose notification was still under way. */
  settledBy?: ChangedBy;
}

/** A snapshot: the view changes in place as the approval does. */
const copy = (view: ApprovalView): ApprovalView => JSON.parse(JSON.stringify(view)) as ApprovalView;

/** What is proposed: the plan, the result under review, or the arguments. */
function proposalOf(view: ApprovalView): JsonValue | undefined {
  if (view.kind === 'plan') return view.plan;
  if (view.kind === 'result') return view.result;
  return view.args;
}

/**
 * The messages the notifications of each approval posted (their ids, as the notifier reports them),
 * kept up with the approval: when it settles or a new proposal replaces the one they show, an
 * activity updates them, beside the run and never holding it up. The run counts the updates under
 * way in `notifying`, so it continues as new only once they are done, and it ends only then.
 */
export class PostedMessages {
  private readonly following = new Map<string, Following>();
  /** Updates scheduled and not yet done. */
  updating = 0;

  constructor(
    /** The book's count of notification activities under way. */
    private readonly counter: { notifying: number },
  ) {}

  private of(trackingId: string): Following {
    let found = this.following.get(trackingId);
    if (!found) {
      found = { rounds: [], chain: Promise.resolve() };
      this.following.set(trackingId, found);
    }
    return found;
  }

  /** A notification of the approval as it is now begins; its edit, if an edit made this revision. */
  begin(record: ApprovalRecord): { round: Round; edit?: EditNote } {
    const following = this.of(record.view.trackingId);
    const round: Round = { shown: copy(record.view) };
    following.rounds.push(round);
    const edit = following.edit?.revision === record.view.revision ? following.edit : undefined;
    return { round, ...(edit ? { edit: { by: edit.by, from: edit.from, diff: edit.diff } } : {}) };
  }

  /** The notification's messages are posted: updated at once if the approval moved on meanwhile. */
  posted(record: ApprovalRecord, round: Round, messages: PostedMessage[]): void {
    if (messages.length === 0) return;
    round.messages = messages;
    const following = this.of(record.view.trackingId);
    if (record.view.status !== 'pending') {
      delete round.shown;
      this.enqueue(following, {
        approval: record.view,
        change: { type: 'settled', ...(following.settledBy ? { by: following.settledBy } : {}) },
        messages,
      });
    } else if (round.replacedBy) {
      this.replace(following, round, record.view);
    }
  }

  /** An edit made a new revision, still pending: its messages are replaced, a new notification follows. */
  edited(record: ApprovalRecord, by: ChangedBy, from: number, diff: EditNote['diff']): void {
    const view = record.view;
    const following = this.of(view.trackingId);
    following.edit = { by, from, diff, revision: view.revision };
    this.supersede(following, view, {
      type: 'edited',
      by,
      at: new Date().toISOString(),
      revision: view.revision,
      diff,
    });
  }

  /** An escalation handed the approval on: its messages are replaced, a new notification follows. */
  escalated(record: ApprovalRecord): void {
    const view = record.view;
    this.supersede(this.of(view.trackingId), view, {
      type: 'escalated',
      at: new Date().toISOString(),
      revision: view.revision,
      approvers: view.approvers,
    });
  }

  /** The approval settled: every message posted for it says how, by whom and through which channel. */
  settled(record: ApprovalRecord, by?: ChangedBy): void {
    const following = this.following.get(record.view.trackingId);
    if (!following) return;
    if (by) following.settledBy = by;
    const messages = following.rounds.flatMap((round) => {
      delete round.shown;
      return round.messages ?? [];
    });
    if (messages.length > 0)
      this.enqueue(following, {
        approval: record.view,
        change: { type: 'settled', ...(by ? { by } : {}) },
        messages,
      });
  }

  /** The messages of a pending approval, for the next run of the chain. */
  carry(trackingId: string): CarriedMessages | undefined {
    const rounds = (this.following.get(trackingId)?.rounds ?? []).flatMap((round) =>
      round.messages ? [{ ...(round.shown ? { shown: round.shown } : {}), messages: round.messages }] : [],
    );
    return rounds.length > 0 ? rounds : undefined;
  }

  /** Takes over the messages of a pending approval from the run this one continues. */
  restore(trackingId: string, carried: CarriedMessages): void {
    this.of(trackingId).rounds.push(...carried.map((round) => ({ ...round })));
  }

  /**
   * Waits for the updates under way; with none, undefined (and nothing is awaited). A run that ends
   * waits for them even once cancelled (the server drops the activities of an execution that ended),
   * but no longer than ENDING_WAIT: a Slack outage must not hold a finished run open for minutes;
   * the messages it could not update then still show the call, and their buttons are refused.
   */
  done(options: { ending?: boolean } = {}): Promise<void> | undefined {
    if (this.updating === 0) return undefined;
    if (!options.ending) return condition(() => this.updating === 0);
    return CancellationScope.nonCancellable(async () => {
      await condition(() => this.updating === 0, ENDING_WAIT);
    });
  }

  private supersede(following: Following, view: ApprovalView, change: ApprovalChange): void {
    for (const round of following.rounds) {
      if (round.replacedBy || !round.shown) continue;
      round.replacedBy = change;
      if (round.messages) this.replace(following, round, view);
    }
  }

  /** The messages of a replaced proposal: what changed from what they show, and that a new one follows. */
  private replace(following: Following, round: Round, now: ApprovalView): void {
    const shown = round.shown;
    const change = round.replacedBy;
    if (!shown || !change || !round.messages) return;
    delete round.shown;
    this.enqueue(following, {
      approval: shown,
      change:
        change.type === 'edited' ? { ...change, diff: diffJson(proposalOf(shown), proposalOf(now)) } : change,
      messages: round.messages,
    });
  }

  private enqueue(following: Following, update: MessagesUpdate): void {
    if (!isPatched(FOLLOW_MESSAGES_PATCH)) return;
    this.counter.notifying++;
    this.updating++;
    following.chain = following.chain
      .then(() => CancellationScope.nonCancellable(() => updateMessages(update)))
      .catch((err: unknown) => {
        log.warn('updating posted messages failed', {
          trackingId: update.approval.trackingId,
          error: failureMessage(err),
        });
      })
      .finally(() => {
        this.counter.notifying--;
        this.updating--;
      });
  }
}

/**
 * The messages a notification posted: its answer's, or those its last attempt reported when it
 * failed (an outage may let some through and not others).
 */
export function postedBy(outcome: { posted?: PostedMessage[] } | unknown): PostedMessage[] {
  if (outcome instanceof ActivityFailure && outcome.cause instanceof ApplicationFailure)
    return postedBy(outcome.cause.details?.[0]);
  const posted = (outcome as { posted?: unknown } | undefined)?.posted;
  if (!Array.isArray(posted)) return [];
  return posted.filter(
    (m): m is PostedMessage =>
      typeof m === 'object' &&
      m !== null &&
      typeof (m as PostedMessage).channel === 'string' &&
      typeof (m as PostedMessage).ts === 'string',
  );
}
