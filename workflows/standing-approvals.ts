import { roleRefusal, sameJson } from '../protocol/decision-rules.js';
import { requirementsMet } from '../protocol/requirements.js';
import type {
  ApprovalView,
  Channel,
  JsonObject,
  JsonValue,
  RevokeStandingRequest,
  Signoff,
  StandingApproval,
  StandingBound,
  ToolSpec,
} from '../protocol/index.js';
import { evaluatePolicy, requirementOf, type CallTotals, type PolicyDecision } from './evaluate-policy.js';
import type { RunLog } from './run-log.js';

/** A standing approval as the run keeps it: what it shows, and the sign-offs later calls are judged by. */
export interface StandingGrant {
  view: StandingApproval;
  signoffs: Signoff[];
}

/**
 * The run's standing approvals: given when a call's approval settles with every sign-off that met
 * its quorum asking for one, used by later calls of the tool in this run alone, ended by time
 * (workflow time), by count, or by a revocation. They are in the run's memory only, so a run that
 * never had one takes no other path than before.
 */
export class StandingApprovals {
  private readonly grants = new Map<string, StandingGrant>();

  constructor(private readonly log: RunLog) {}

  /** Takes over the standing approvals of the run this one continues. */
  restore(carried: StandingGrant[] = []): void {
    for (const grant of carried) this.grants.set(grant.view.trackingId, grant);
  }

  /**
   * A call's approval settled approved or edited: a standing approval when every sign-off that met
   * the quorum asked for one, on the terms of the tier the approved arguments fall in (none when that
   * tier offers none, as after an edit into a tier that allows no standing approval).
   */
  settled(view: ApprovalView, tool: ToolSpec | undefined, totals: CallTotals | undefined): void {
    const signoffs = view.approvals;
    if (view.kind !== 'call' || !tool || signoffs.length === 0) return;
    if (!signoffs.every((signoff) => signoff.standing)) return;
    const decision = evaluatePolicy(tool, view.args, totals);
    const terms = decision.verdict === 'approve' ? decision.tier.standing : undefined;
    if (!terms) return;
    const grantedBy = signoffs.map((signoff) => signoff.approver);
    const now = Date.now();
    const standing: StandingApproval = {
      trackingId: view.trackingId,
      tool: view.tool,
      toolCallId: view.toolCallId,
      args: view.args,
      ...(terms.bounds ? { bounds: terms.bounds } : {}),
      grantedBy,
      roles: view.approvers,
      grantedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + terms.maxSeconds * 1000).toISOString(),
      maxCalls: terms.maxCalls,
      covered: [],
      status: 'active',
    };
    this.grants.set(view.trackingId, { view: standing, signoffs });
    this.log.add({
      type: 'standing.granted',
      trackingId: view.trackingId,
      tool: view.tool,
      data: {
        toolCallId: view.toolCallId,
        grantedBy,
        expiresAt: standing.expiresAt,
        maxCalls: standing.maxCalls,
      },
    });
  }

  /**
   * The standing approval that covers this call, used once for it, or undefined: the call then asks
   * as usual. A call is covered by an active standing approval of its tool whose arguments it stays
   * within, when its own tier offers standing approvals and its own requirement (cumulative limits
   * included) is met by the sign-offs that gave it.
   */
  cover(
    tool: ToolSpec,
    toolCallId: string,
    args: JsonObject,
    decision: Extract<PolicyDecision, { verdict: 'approve' }>,
  ): StandingApproval | undefined {
    if (this.grants.size === 0 || !decision.tier.standing) return undefined;
    const requirement = requirementOf(decision);
    for (const { view, signoffs } of this.grants.values()) {
      if (view.tool !== tool.name || statusOf(view) !== 'active') continue;
      if (!within(view.args, args, view.bounds)) continue;
      if (!requirementsMet([requirement], signoffs)) continue;
      view.covered.push(toolCallId);
      if (view.covered.length >= view.maxCalls) view.status = 'used';
      this.log.add({
        type: 'standing.used',
        trackingId: view.trackingId,
        tool: tool.name,
        data: {
          toolCallId,
          grantedBy: view.grantedBy,
          fromCall: view.toolCallId,
          call: view.covered.length,
          maxCalls: view.maxCalls,
        },
      });
      return view;
    }
    return undefined;
  }

  /**
   * The revoke signal's handler. It comes from any Temporal client: only a well-formed request from
   * someone holding a role the approval asked for ends an active standing approval; any other is
   * recorded as refused.
   */
  revoke(raw: unknown): void {
    if (!isRevokeRequest(raw)) return;
    const grant = this.grants.get(raw.trackingId);
    const refused = (reason: string, code: 'unknown_approval' | 'already_settled' | 'role_not_allowed') =>
      this.log.add({
        type: 'decision.refused',
        trackingId: raw.trackingId,
        actor: raw.approver.id,
        channel: raw.channel,
        code,
        reason,
      });
    if (!grant) return void refused('no standing approval was given on this approval', 'unknown_approval');
    const status = statusOf(grant.view);
    if (status !== 'active') return void refused(endedReason(status), 'already_settled');
    if (roleRefusal({ approvers: grant.view.roles }, raw.approver.roles))
      return void refused(
        `revoking it needs one of the roles: ${grant.view.roles.join(', ')}`,
        'role_not_allowed',
      );
    grant.view.status = 'revoked';
    grant.view.revokedBy = { actor: raw.approver.id, channel: raw.channel, at: new Date().toISOString() };
    this.log.add({
      type: 'standing.revoked',
      trackingId: raw.trackingId,
      tool: grant.view.tool,
      actor: raw.approver.id,
      channel: raw.channel,
      data: { covered: grant.view.covered.length },
    });
  }

  /** The run's standing approvals as its state shows them; absent while it has none. */
  state(): { standing?: StandingApproval[] } {
    if (this.grants.size === 0) return {};
    return { standing: [...this.grants.values()].map(({ view }) => ({ ...view, status: statusOf(view) })) };
  }

  carry(): StandingGrant[] {
    return [...this.grants.values()];
  }
}

/** Why an ended standing approval can no longer be revoked, in words. */
export function endedReason(status: Exclude<StandingApproval['status'], 'active'>): string {
  if (status === 'expired') return 'this standing approval has expired';
  if (status === 'used') return 'this standing approval has covered all the calls it may';
  return 'this standing approval has already been revoked';
}

/** Its status now: an active one whose time has passed has expired (workflow time). */
export function statusOf(view: StandingApproval): StandingApproval['status'] {
  return view.status === 'active' && Date.now() >= Date.parse(view.expiresAt) ? 'expired' : view.status;
}

/** Every argument equals the approved one, except where a bound lets it vary within that bound. */
export function within(
  approved: JsonObject,
  args: JsonObject,
  bounds: Record<string, StandingBound> | undefined,
): boolean {
  const fields = new Set([...Object.keys(approved), ...Object.keys(args)]);
  return [...fields].every((field) => {
    const bound = bounds?.[field];
    return bound ? inBound(bound, args[field], approved[field]) : sameJson(approved[field], args[field]);
  });
}

function inBound(
  bound: StandingBound,
  value: JsonValue | undefined,
  approved: JsonValue | undefined,
): boolean {
  if (bound.in) return value !== undefined && bound.in.some((allowed) => sameJson(allowed, value));
  if (typeof value !== 'number' || !Number.isFinite(value)) return false;
  const limit = (end: number | 'approved' | undefined) => (end === 'approved' ? approved : end);
  const min = limit(bound.min);
  const max = limit(bound.max);
  // A bound on the approved value holds only where that value is a number.
  if (min !== undefined && (typeof min !== 'number' || value < min)) return false;
  if (max !== undefined && (typeof max !== 'number' || value > max)) return false;
  return true;
}

const CHANNELS: readonly string[] = ['api', 'inbox', 'email', 'cli', 'slack', 'chat'] satisfies Channel[];

/** The revoke signal's payload, checked by hand: the workflow bundle carries no zod. */
function isRevokeRequest(value: unknown): value is RevokeStandingRequest {
  if (typeof value !== 'object' || value === null) return false;
  const { trackingId, approver, channel } = value as Record<string, unknown>;
  if (typeof trackingId !== 'string' || trackingId.length === 0 || trackingId.length > 200) return false;
  if (typeof channel !== 'string' || !CHANNELS.includes(channel)) return false;
  if (typeof approver !== 'object' || approver === null) return false;
  const { id, roles } = approver as Record<string, unknown>;
  return (
    typeof id === 'string' &&
    id.length > 0 &&
    id.length <= 200 &&
    Array.isArray(roles) &&
    roles.length <= 50 &&
    roles.every((role) => typeof role === 'string' && role.length > 0)
  );
}
