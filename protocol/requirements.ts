import type { Requirement, Signoff } from './approval.js';

/**
 * Whether a sign-off counts toward a requirement: its approver held one of the requirement's roles,
 * and is not one of those who proposed what it covers (`notBy`).
 *
 * @example
 * ```ts
 * import { countsToward } from './requirements.js';
 *
 * countsToward({ approver: 'cy', roles: ['cfo'] }, { roles: ['cfo', 'ceo'], count: 1, reason: 'large transfer' }); // true
 * ```
 */
export function countsToward(
  signoff: Pick<Signoff, 'approver' | 'roles'>,
  requirement: Requirement,
): boolean {
  if (requirement.notBy?.includes(signoff.approver)) return false;
  return signoff.roles.some((role) => requirement.roles.includes(role));
}

/**
 * Sign-offs still missing for each requirement (0 where it is met).
 *
 * @example
 * ```ts
 * import { missing } from './requirements.js';
 *
 * const short = missing(approval.requirements, approval.approvals); // [0, 1]: the second needs one more
 * ```
 */
export function missing(requirements: Requirement[], approvals: Signoff[]): number[] {
  return requirements.map((r) => Math.max(0, r.count - approvals.filter((s) => countsToward(s, r)).length));
}

/**
 * An approval is approved when every requirement has its count of distinct qualifying sign-offs.
 *
 * @example
 * ```ts
 * import { requirementsMet } from './requirements.js';
 *
 * const oneMoreWouldDo = !requirementsMet(approval.requirements, approval.approvals);
 * ```
 */
export function requirementsMet(requirements: Requirement[], approvals: Signoff[]): boolean {
  return missing(requirements, approvals).every((n) => n === 0);
}

/**
 * The stricter of two sets of requirements: all of `current`, plus each added one that `current`
 * does not already imply (the same roles with at least its count). Nothing is ever taken away.
 *
 * @example
 * ```ts
 * import { mergeRequirements } from './requirements.js';
 *
 * mergeRequirements(
 *   [{ roles: ['finance'], count: 2, reason: 'policy' }],
 *   [{ roles: ['finance'], count: 1, reason: 'edit' }, { roles: ['cfo'], count: 1, reason: 'edit' }],
 * ); // finance x2 and cfo x1: one finance sign-off is already implied
 * ```
 */
export function mergeRequirements(current: Requirement[], added: Requirement[]): Requirement[] {
  const merged = [...current];
  for (const requirement of added) {
    const implied = merged.some(
      (r) =>
        r.count >= requirement.count &&
        r.roles.length === requirement.roles.length &&
        r.roles.every((role) => requirement.roles.includes(role)) &&
        // A requirement some people may not meet is not implied by one they may.
        (requirement.notBy ?? []).every((id) => r.notBy?.includes(id) === true),
    );
    if (!implied) merged.push(requirement);
  }
  return merged;
}

/**
 * Every role that may decide, and the largest quorum: the view's summary of its requirements.
 *
 * @example
 * ```ts
 * import { summarize } from './requirements.js';
 *
 * summarize([
 *   { roles: ['finance'], count: 2, reason: 'policy' },
 *   { roles: ['cfo'], count: 1, reason: 'tier' },
 * ]); // { approvers: ['finance', 'cfo'], requiredApprovals: 2 }
 * ```
 */
export function summarize(requirements: Requirement[]): { approvers: string[]; requiredApprovals: number } {
  return {
    approvers: [...new Set(requirements.flatMap((r) => r.roles))],
    requiredApprovals: Math.max(...requirements.map((r) => r.count)),
  };
}

/**
 * What each requirement still needs, as a person reads it in the CLI and the email: `cfo: 1 of 2
 * (large payout: payout: amount over 1000)`.
 *
 * @example
 * ```ts
 * import { requirementLines } from './requirements.js';
 *
 * for (const line of requirementLines(approval)) console.log(`  ${line}`);
 * ```
 */
export function requirementLines(view: { requirements: Requirement[]; approvals: Signoff[] }): string[] {
  const short = missing(view.requirements, view.approvals);
  return view.requirements.map((r, i) => {
    const have = r.count - short[i]!;
    const why = r.tier ? `${r.tier}: ${r.reason}` : r.reason;
    const notBy = r.notBy?.length ? `, not ${r.notBy.join(' or ')}` : '';
    return `${r.roles.join(' or ')}${notBy}: ${have} of ${r.count}${short[i] === 0 ? ' (met)' : ''} (${why})`;
  });
}
