import { condition, setHandler } from '@temporalio/workflow';
import type { CancelRequest, Channel, RunControl } from '../protocol/index.js';
import type { ApprovalBook } from './approval-book.js';
import type { Continuation } from './continuation.js';
import { cancelSignal, pauseSignal, resumeSignal } from './definitions.js';
import type { RunLog } from './run-log.js';

/**
 * The run's controls, as the ApprovalBook holds its approvals: who paused it, the corrections given
 * on resume for the model to read, and who cancelled it. Their signals come from any Temporal
 * client, so only a well-formed request is taken; the run reads them at its step boundaries.
 */
export class RunControls {
  /** Who paused the run, while it is paused. */
  private pausedBy: RunControl | undefined;
  /** Corrections from resumes, waiting for the next model call. */
  private readonly corrections: string[];
  /** Who cancels, told just before Temporal's cancellation request; the first such request counts. */
  private cancelledBy: CancelRequest | undefined;
  /** Told of each pause, resume and cancel the run takes, to pass it on to its sub-agents. */
  relay: (kind: 'pause' | 'resume' | 'cancel', request: RunControl) => void = () => undefined;

  constructor(
    private readonly log: RunLog,
    /** Whether the run still runs: an ended run is neither paused nor resumed. */
    private readonly live: () => boolean,
    /** Called when the run is paused or resumed, to settle its status and publish it. */
    private readonly onChange: () => void,
    carried?: Pick<Continuation, 'pausedBy' | 'corrections'>,
  ) {
    this.pausedBy = carried?.pausedBy;
    this.corrections = [...(carried?.corrections ?? [])];
  }

  get paused(): boolean {
    return this.pausedBy !== undefined;
  }

  /** Sets the handlers of the cancel, pause and resume signals (a buffered signal is handled at once). */
  listen(): void {
    setHandler(cancelSignal, (request) => {
      if (this.cancelledBy === undefined && isCancelRequest(request)) {
        this.cancelledBy = { actor: request.actor, channel: request.channel };
        this.relay('cancel', this.cancelledBy);
      }
    });
    setHandler(pauseSignal, (request) => {
      if (this.pausedBy !== undefined || !this.live() || !isRunControl(request)) return;
      this.pausedBy = request;
      this.log.add({ type: 'run.paused', actor: request.actor, channel: request.channel, ...said(request) });
      this.onChange();
      this.relay('pause', request);
    });
    setHandler(resumeSignal, (request) => {
      if (this.pausedBy === undefined || !this.live() || !isRunControl(request)) return;
      this.pausedBy = undefined;
      if (request.message !== undefined) this.corrections.push(request.message);
      this.log.add({ type: 'run.resumed', actor: request.actor, channel: request.channel, ...said(request) });
      this.onChange();
      this.relay('resume', request);
    });
  }

  /**
   * While the run is paused, a promise of its resume; otherwise undefined, so a step that checks it
   * adds no await (and no reordering of commands) to runs nobody pauses.
   */
  resumed(): Promise<void> | undefined {
    return this.pausedBy ? condition(() => this.pausedBy === undefined) : undefined;
  }

  /** Whether a resume left a correction the model has not read yet. */
  get corrected(): boolean {
    return this.corrections.length > 0;
  }

  /** The corrections given on resume, each taken once: what the model reads next, as the user's word. */
  takeCorrections(): string[] {
    return this.corrections.splice(0);
  }

  /** The controls as the next run of the chain takes them over. */
  carry(): Pick<Continuation, 'pausedBy' | 'corrections'> {
    return { ...(this.pausedBy ? { pausedBy: this.pausedBy } : {}), corrections: this.corrections };
  }

  /**
   * The run was cancelled: records by whom (nobody known when the cancellation came from Temporal
   * without Countersign's cancel signal), settles its pending approvals as cancelled, and says why
   * the run ended.
   */
  settleCancellation(book: ApprovalBook): string {
    const by = this.cancelledBy;
    this.log.add(
      by
        ? { type: 'run.cancelled', actor: by.actor, channel: by.channel }
        : { type: 'run.cancelled', reason: 'cancelled through Temporal, without saying by whom' },
    );
    book.cancelPending(by);
    return `the run was cancelled${by ? ` by ${by.actor} (${by.channel})` : ''}`;
  }
}

const CHANNELS: readonly string[] = ['api', 'inbox', 'email', 'cli'] satisfies Channel[];

/** The cancel signal comes from any Temporal client: only a well-formed one names who cancelled. */
function isCancelRequest(value: unknown): value is CancelRequest {
  if (typeof value !== 'object' || value === null) return false;
  const { actor, channel } = value as Record<string, unknown>;
  return (
    typeof actor === 'string' &&
    actor.length > 0 &&
    actor.length <= 200 &&
    typeof channel === 'string' &&
    CHANNELS.includes(channel)
  );
}

/** Pause and resume come from any Temporal client: only a well-formed request is taken. */
function isRunControl(value: unknown): value is RunControl {
  if (!isCancelRequest(value)) return false;
  const { message } = value as { message?: unknown };
  return (
    message === undefined || (typeof message === 'string' && message.length > 0 && message.length <= 4000)
  );
}

/** The audit entry's reason: the message a person gave, if any. */
function said(request: RunControl): { message?: string } {
  return request.message !== undefined ? { message: request.message } : {};
}
