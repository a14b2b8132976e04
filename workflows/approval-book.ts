import { DECISION_SIGNAL_SCHEMA } from '../protocol/generated/workflow-schemas.js';
import { trackingIdFor } from '../protocol/tracking-id.js';
import type {
  DecisionSignal,
  ApprovalKind,
  ApprovalOutcome,
  ApprovalStatus,
  ApprovalView,
  DecisionOutcome,
  DecisionType,
  JsonObject,
  JsonValue,
  PlanStep,
  JsonSchema,
  Reminder,
  Requirement,
  StandingTerms,
  TimeoutAction,
  ToolSpec,
  UnknownAttempt,
  SecretRequest,
} from '../protocol/index.js';
import { diffJson } from './arg-diff.js';
import type { ChangedBy } from './activity-types.js';
import type { ApprovalRecord, DecisionContext, Describe } from './approval-record.js';
import type { CarriedBook } from './continuation.js';
import { checkDecision, previewEdit, type Accepted } from './check-decision.js';
import type { EditPreview } from './definitions.js';
import { PostedMessages } from './posted-messages.js';
import { remindersOf } from './reminders.js';
import { StandingApprovals } from './standing-approvals.js';
import type { RunLog } from './run-log.js';
import { mergeRequirements, requirementsMet, summarize } from '../protocol/requirements.js';
import { validateAgainstSchema } from './validate-args.js';
import { isPatched, REVISIONS_PATCH, DESCRIBE_EDITS_PATCH } from './patches.js';

/** What a part of the workflow asks a human to decide. */
export interface ApprovalRequest {
  kind: ApprovalKind;
  tool: string;
  toolCallId: string;
  args: JsonObject;
  plan?: PlanStep[];
  result?: JsonValue;
  question?: string;
  /** The attempt whose outcome a person is asked for (kind `outcome`). */
  attempt?: UnknownAttempt;
  /** The secret a person is asked to supply (kind `secret`). */
  secret?: SecretRequest;
  description: string;
  /** Describes the proposal again after an edit; without it the first description stays. */
  describe?: Describe;
  schema: JsonSchema;
  resultSchema?: JsonSchema;
  allowedDecisions: DecisionType[];
  editableFields?: string[];
  /** Who must approve, and why; see `Requirement`. */
  requirements: Requirement[];
  allowSelfApproval: boolean;
  deadlineSeconds: number;
  onTimeout: TimeoutAction;
  /** Reminders before the deadline (a tier's); the tool's policy's when absent. */
  remind?: Reminder[];
  /** The standing approval a call's tier offers, if it offers one. */
  standing?: StandingTerms;
}

export interface RunIdentity {
  runId: string;
  agent: string;
  requester?: string;
  tools: ReadonlyMap<string, ToolSpec>;
  /** What cumulative limits count, for judging edits. */
  totals?: DecisionContext['totals'];
}

/**
 * Every approval of the run and every decision taken on them. Decisions arrive by signal or update
 * and are checked and applied here, synchronously; the gate waiting on an approval only watches its
 * status.
 */
export class ApprovalBook {
  private seq = 0;
  private readonly records = new Map<string, ApprovalRecord>();
  private readonly outcomes = new Map<string, DecisionOutcome>();
  private readonly usedNonces = new Set<string>();
  /** Approvals carried pending from the run this one continues, not yet waited on again. */
  private readonly carriedPending = new Set<ApprovalRecord>();

  constructor(
    private readonly run: RunIdentity,
    private readonly log: RunLog,
    /** Called whenever the set of pending approvals changes, to publish it. */
    private readonly onChange: () => void,
  ) {
    this.standing = new StandingApprovals(log);
  }

  /** The reminders due before the request's deadline, earliest first. */
  remindersFor(request: ApprovalRequest): Reminder[] {
    return remindersOf(request, this.run.tools);
  }

  get(trackingId: string): ApprovalView | null {
    return this.records.get(trackingId)?.view ?? null;
  }

  /** What an edit would ask for were it sent now; changes nothing (a query's answer). */
  previewEdit(
    trackingId: string,
    edit: { args?: JsonObject; plan?: PlanStep[] },
    editor: string,
  ): EditPreview {
    return previewEdit(
      this.records.get(trackingId),
      edit,
      {
        requester: this.run.requester,
        usedNonces: this.usedNonces,
        tools: this.run.tools,
        ...(this.run.totals ? { totals: this.run.totals } : {}),
        requireRevision: false,
      },
      editor,
    );
  }

  /**
   * Notifications sent and not yet answered: a run continues as new only with none, since the
   * server drops the activities of an execution that has ended.
   */
  notifying = 0;

  /** The messages the notifications posted, updated as the approvals change. */
  readonly messages = new PostedMessages(this);

  /** Standing approvals given on the run's calls, for the later calls like them. */
  readonly standing: StandingApprovals;

  /** The book as the next run of the chain takes it over, pending approvals and all. */
  carry(): CarriedBook {
    return {
      seq: this.seq,
      approvals: [...this.records.values()].map(({ view, original, resultSchema, edited }) => {
        const messages = view.status === 'pending' ? this.messages.carry(view.trackingId) : undefined;
        return {
          view,
          original,
          ...(resultSchema ? { resultSchema } : {}),
          ...(edited ? { edited } : {}),
          ...(messages ? { messages } : {}),
        };
      }),
      outcomes: [...this.outcomes.values()],
      usedNonces: [...this.usedNonces],
      ...(this.standing.carry().length > 0 ? { standing: this.standing.carry() } : {}),
    };
  }

  /** Takes over the book of the run this one continues. */
  restore(carried: CarriedBook): void {
    this.seq = carried.seq;
    for (const { messages, ...record } of carried.approvals) {
      this.records.set(record.view.trackingId, record);
      if (messages) this.messages.restore(record.view.trackingId, messages);
      if (record.view.status === 'pending') this.carriedPending.add(record);
    }
    for (const outcome of carried.outcomes) this.outcomes.set(outcome.requestId, outcome);
    for (const nonce of carried.usedNonces) this.usedNonces.add(nonce);
    this.standing.restore(carried.standing);
  }

  /** The pending approval of this kind for this call, if there is one. */
  pendingFor(kind: ApprovalKind, toolCallId: string): ApprovalRecord | undefined {
    for (const record of this.records.values()) {
      const { view } = record;
      if (view.status === 'pending' && view.kind === kind && view.toolCallId === toolCallId) return record;
    }
    return undefined;
  }

  /**
   * The approval carried pending from the run this one continues, for the request a resumed turn
   * makes again: the same approval, tracking id and all, waited on where it left off (or already
   * decided, by a decision this execution took first).
   */
  resume(request: ApprovalRequest): ApprovalRecord | undefined {
    for (const record of this.carriedPending) {
      const { view } = record;
      if (view.kind !== request.kind || view.toolCallId !== request.toolCallId) continue;
      this.carriedPending.delete(record);
      if (request.describe) record.describe = request.describe;
      return record;
    }
    return undefined;
  }

  /** The sealed secret supplied to an approval of kind `secret`, handed over once. */
  takeSealed(trackingId: string): string | undefined {
    const record = this.records.get(trackingId);
    const sealed = record?.sealed;
    if (record) delete record.sealed;
    return sealed;
  }

  all(): ApprovalView[] {
    return [...this.records.values()].map((record) => record.view);
  }

  pending(): ApprovalView[] {
    return this.all().filter((view) => view.status === 'pending');
  }

  outcome(requestId: string): DecisionOutcome | null {
    return this.outcomes.get(requestId) ?? null;
  }

  outcomesTaken(): DecisionOutcome[] {
    return [...this.outcomes.values()];
  }

  /** Opens an approval. Tracking ids come from a workflow counter, so replays and retries never mint two. */
  open(request: ApprovalRequest): ApprovalRecord {
    const trackingId = trackingIdFor(this.run.runId, ++this.seq);
    const now = Date.now();
    const view: ApprovalView = {
      trackingId,
      runId: this.run.runId,
      agent: this.run.agent,
      kind: request.kind,
      tool: request.tool,
      toolCallId: request.toolCallId,
      args: request.args,
      ...(request.plan ? { plan: request.plan } : {}),
      ...(request.result !== undefined ? { result: request.result } : {}),
      ...(request.question !== undefined ? { question: request.question } : {}),
      ...(request.attempt ? { attempt: request.attempt } : {}),
      ...(request.secret ? { secret: request.secret } : {}),
      description: request.description,
      schema: request.schema,
      allowedDecisions: request.allowedDecisions,
      ...(request.editableFields ? { editableFields: request.editableFields } : {}),
      ...(request.standing ? { standing: request.standing } : {}),
      ...summarize(request.requirements),
      requirements: request.requirements,
      revision: 1,
      approvals: [],
      ...(this.run.requester !== undefined ? { requester: this.run.requester } : {}),
      allowSelfApproval: request.allowSelfApproval,
      requestedAt: new Date(now).toISOString(),
      deadline: new Date(now + request.deadlineSeconds * 1000).toISOString(),
      onTimeout: request.onTimeout,
      escalated: false,
      status: 'pending',
    };
    const record: ApprovalRecord = {
      view,
      original: { args: request.args, plan: request.plan, result: request.result },
      ...(request.resultSchema ? { resultSchema: request.resultSchema } : {}),
      ...(request.describe ? { describe: request.describe } : {}),
    };
    this.records.set(trackingId, record);
    this.log.add({
      type: 'approval.requested',
      trackingId,
      tool: request.tool,
      data: {
        kind: request.kind,
        toolCallId: request.toolCallId,
        approvers: view.approvers,
        requirements: request.requirements,
        deadline: view.deadline,
      },
    });
    this.onChange();
    return record;
  }

  /** The decision signal's handler: check, then apply or record the refusal. Never throws. */
  decide(raw: unknown): void {
    const problems = validateAgainstSchema(DECISION_SIGNAL_SCHEMA, raw);
    if (problems.length > 0) {
      this.refuseMalformed(raw, problems.map((p) => `${p.path || '/'}: ${p.message}`).join('; '));
      return;
    }
    const signal = raw as DecisionSignal;
    // A retried request changes nothing and keeps its first answer.
    if (this.outcomes.has(signal.requestId)) return;
    const record = this.records.get(signal.trackingId);
    const checked = checkDecision(record, signal, {
      requester: this.run.requester,
      usedNonces: this.usedNonces,
      tools: this.run.tools,
      ...(this.run.totals ? { totals: this.run.totals } : {}),
      // Runs recorded before revisions took decisions without one; new runs never do.
      requireRevision: isPatched(REVISIONS_PATCH),
    });
    if (!checked.ok) {
      this.log.add({
        type: 'decision.refused',
        trackingId: signal.trackingId,
        tool: record?.view.tool,
        actor: signal.approver.id,
        channel: signal.channel,
        decision: signal.decision.type,
        code: checked.code,
        reason: checked.reason,
        ...(checked.fieldErrors ? { data: { fieldErrors: checked.fieldErrors } } : {}),
      });
      this.record(signal, record, {
        accepted: false,
        code: checked.code,
        reason: checked.reason,
        fieldErrors: checked.fieldErrors,
      });
      return;
    }
    if (signal.linkNonce !== undefined) this.usedNonces.add(signal.linkNonce);
    this.apply(record!, signal, checked);
    this.record(signal, record, { accepted: true });
  }

  /**
   * The deadline passed: hand the approval to the escalation roles with a fresh deadline. A new
   * quorum starts among them; the first sign-offs stay in the audit trail but no longer count,
   * unless the policy keeps them (`keepSignoffs`): then the escalation's roles join the first ones
   * and the proposal every earlier signer saw, and its revision, stay as they were.
   */
  escalate(
    record: ApprovalRecord,
    escalation: { approvers: string[]; deadlineSeconds: number; keepSignoffs?: boolean },
  ): void {
    const view = record.view;
    const { approvers, deadlineSeconds } = escalation;
    if (escalation.keepSignoffs) {
      view.requirements = view.requirements.map((r) => ({
        ...r,
        roles: [...new Set([...r.roles, ...approvers])],
        reason: `${r.reason}; escalated to ${approvers.join(', ')} with the sign-offs already given`,
      }));
    } else {
      const why = view.requirements.map((r) => r.reason).join('; ');
      view.requirements = [
        {
          roles: approvers,
          count: view.requiredApprovals,
          reason: `escalated: nobody decided before the deadline (${why})`,
        },
      ];
      view.approvals = [];
      view.revision++;
    }
    Object.assign(view, summarize(view.requirements));
    record.view.escalated = true;
    record.view.deadline = new Date(Date.now() + deadlineSeconds * 1000).toISOString();
    this.log.add({
      type: 'approval.escalated',
      trackingId: record.view.trackingId,
      tool: record.view.tool,
      data: {
        approvers,
        deadline: record.view.deadline,
        ...(escalation.keepSignoffs ? { keepSignoffs: true } : {}),
      },
    });
    this.messages.escalated(record);
    this.onChange();
  }

  expire(record: ApprovalRecord): void {
    this.settle(record, 'expired', { by: [], message: 'no decision before the deadline' });
  }

  /**
   * The run was cancelled: every approval still pending ends as cancelled, by whoever cancelled it
   * (nobody known when the cancellation came from Temporal without Countersign's cancel signal).
   */
  cancelPending(by?: { actor: string; channel: DecisionSignal['channel'] }): void {
    const message = by ? `the run was cancelled by ${by.actor} (${by.channel})` : 'the run was cancelled';
    for (const record of this.records.values()) {
      if (record.view.status === 'pending')
        this.settle(record, 'cancelled', { by: by ? [by.actor] : [], message }, by);
    }
  }

  private apply(record: ApprovalRecord, signal: DecisionSignal, checked: Accepted): void {
    const view = record.view;
    const decision = signal.decision;
    // An edit makes a new proposal: its author's sign-off is on that one.
    if (decision.type === 'edit') view.revision++;
    const signoff = {
      approver: signal.approver.id,
      roles: signal.approver.roles,
      revision: view.revision,
      channel: signal.channel,
      at: new Date().toISOString(),
      ...(decision.type !== 'reject' && decision.type !== 'respond' && decision.standing
        ? { standing: true as const }
        : {}),
    };
    this.log.add({
      type: 'approval.decided',
      trackingId: view.trackingId,
      tool: view.tool,
      actor: signal.approver.id,
      channel: signal.channel,
      decision: decision.type,
      ...(decision.message !== undefined ? { message: decision.message } : {}),
      ...(checked.diff ? { diff: checked.diff } : {}),
      data: {
        revision: view.revision,
        ...(checked.raised ? { requirementsAdded: checked.raised.requirements } : {}),
      },
    });
    const by = [signal.approver.id];
    const decider = { actor: signal.approver.id, channel: signal.channel };
    switch (decision.type) {
      case 'reject':
        this.settle(record, 'rejected', { by, message: decision.message }, decider);
        return;
      case 'respond':
        if (checked.sealed !== undefined) record.sealed = checked.sealed;
        this.settle(record, 'responded', { by, result: checked.result, message: decision.message }, decider);
        return;
      case 'edit':
        // An edit is its author's approval of the new proposal; earlier approvals were of the old one.
        if (checked.plan) view.plan = checked.plan;
        else if (view.kind === 'result') view.result = checked.args;
        else if (checked.args) view.args = checked.args;
        if (record.describe && view.kind !== 'result' && isPatched(DESCRIBE_EDITS_PATCH))
          view.description = record.describe({ args: view.args, ...(view.plan ? { plan: view.plan } : {}) });
        view.approvals = [signoff];
        record.edited = true;
        if (checked.raised) this.raise(record, checked.raised);
        break;
      case 'approve':
        view.approvals.push(signoff);
        break;
    }
    if (!requirementsMet(view.requirements, view.approvals)) {
      if (decision.type === 'edit')
        this.messages.edited(record, decider, view.revision - 1, checked.diff ?? []);
      this.onChange();
      return;
    }
    const approvers = view.approvals.map((s) => s.approver);
    if (!record.edited) {
      this.settle(record, 'approved', { by: approvers, message: decision.message }, decider);
    } else if (view.kind === 'plan') {
      this.settle(
        record,
        'edited',
        { by: approvers, plan: view.plan, diff: diffJson(record.original.plan, view.plan) },
        decider,
      );
    } else if (view.kind === 'result') {
      this.settle(
        record,
        'edited',
        { by: approvers, result: view.result, diff: diffJson(record.original.result, view.result) },
        decider,
      );
    } else {
      this.settle(
        record,
        'edited',
        { by: approvers, args: view.args, diff: diffJson(record.original.args, view.args) },
        decider,
      );
    }
    // Given once the quorum is met, and only if its signers asked for it.
    this.standing.settled(
      view,
      this.run.tools.get(view.tool),
      this.run.totals?.of(view.tool, [view.toolCallId]),
    );
  }

  /**
   * An edit moved the proposal into a stricter tier: its requirements are added (never replacing
   * those shown before), and an earlier deadline or a reject on timeout applies.
   */
  private raise(record: ApprovalRecord, raised: NonNullable<Accepted['raised']>): void {
    const view = record.view;
    view.requirements = mergeRequirements(view.requirements, raised.requirements);
    Object.assign(view, summarize(view.requirements));
    if (raised.deadlineSeconds !== undefined) {
      const deadline = Date.now() + raised.deadlineSeconds * 1000;
      if (deadline < Date.parse(view.deadline)) view.deadline = new Date(deadline).toISOString();
    }
    if (raised.onTimeout?.action === 'reject') view.onTimeout = raised.onTimeout;
  }

  /** `decider`: who took the step that settled it, and through which channel. */
  private settle(
    record: ApprovalRecord,
    status: ApprovalStatus,
    fields: Omit<ApprovalOutcome, 'status' | 'at'>,
    decider?: ChangedBy,
  ): void {
    const outcome: ApprovalOutcome = { status, at: new Date().toISOString(), by: fields.by };
    for (const [key, value] of Object.entries(fields)) {
      if (value !== undefined) (outcome as Record<string, unknown>)[key] = value;
    }
    record.view.status = status;
    record.view.outcome = outcome;
    this.log.add({
      type: 'approval.settled',
      trackingId: record.view.trackingId,
      tool: record.view.tool,
      status,
      ...(outcome.message !== undefined ? { message: outcome.message } : {}),
      ...(outcome.diff ? { diff: outcome.diff } : {}),
      data: { by: outcome.by },
    });
    this.messages.settled(record, decider);
    this.onChange();
  }

  private record(
    signal: DecisionSignal,
    record: ApprovalRecord | undefined,
    result: Pick<DecisionOutcome, 'accepted' | 'code' | 'reason' | 'fieldErrors'>,
  ): void {
    const outcome: DecisionOutcome = {
      requestId: signal.requestId,
      trackingId: signal.trackingId,
      accepted: result.accepted,
      ...(result.code ? { code: result.code } : {}),
      ...(result.reason ? { reason: result.reason } : {}),
      ...(result.fieldErrors ? { fieldErrors: result.fieldErrors } : {}),
      status: record?.view.status ?? 'pending',
      approvals: record?.view.approvals.length ?? 0,
      requiredApprovals: record?.view.requiredApprovals ?? 0,
      ...(record ? { revision: record.view.revision } : {}),
      ...(signal.fingerprint !== undefined ? { fingerprint: signal.fingerprint } : {}),
      at: new Date().toISOString(),
    };
    this.outcomes.set(signal.requestId, outcome);
  }

  /** A signal that is not a DecisionSignal: recorded when it says who and what, dropped otherwise. */
  private refuseMalformed(raw: unknown, reason: string): void {
    const fields = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const requestId = typeof fields.requestId === 'string' ? fields.requestId : undefined;
    const trackingId = typeof fields.trackingId === 'string' ? fields.trackingId : '';
    this.log.add({
      type: 'decision.refused',
      trackingId: trackingId || undefined,
      code: 'decision_not_allowed',
      reason: `malformed decision: ${reason}`,
    });
    if (requestId === undefined || this.outcomes.has(requestId)) return;
    const record = this.records.get(trackingId);
    this.outcomes.set(requestId, {
      requestId,
      trackingId,
      accepted: false,
      code: 'decision_not_allowed',
      reason: `malformed decision: ${reason}`,
      status: record?.view.status ?? 'pending',
      approvals: record?.view.approvals.length ?? 0,
      requiredApprovals: record?.view.requiredApprovals ?? 0,
      at: new Date().toISOString(),
    });
  }
}
