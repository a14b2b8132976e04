import type { Requirement, Signoff } from './approval.js';

/** Whether a sign-off counts toward a requirement: its approver held one of the requirement's roles. */
export function countsToward(signoff: Pick<Signoff, 'roles'>, requirement: Requirement): boolean {
  return signoff.roles.some((role) => requirement.roles.includes(role));
}

/** Sign-offs still missing for each requirement (0 where it is met). */
export function missing(requirements: Requirement[], approvals: Signoff[]): number[] {
  return requirements.map((r) => Math.max(0, r.count - approvals.filter((s) => countsToward(s, r)).length));
}

/** An approval is approved when every requirement has its count of distinct qualifying sign-offs. */
export function requirementsMet(requirements: Requirement[], approvals: Signoff[]): boolean {
  return missing(requirements, approvals).every((n) => n === 0);
}

/**
 * The stricter of two sets of requirements: all of `current`, plus each added one that `current`
 * does not already imply (the same roles with at least its count). Nothing is ever taken away.
 */
export function mergeRequirements(current: Requirement[], added: Requirement[]): Requirement[] {
  const merged = [...current];
  for (const requirement of added) {
    const implied = merged.some(
      (r) =>
        r.count >= requirement.count &&
        r.roles.length === requirement.roles.length &&
        r.roles.every((role) => requirement.roles.includes(role)),
    );
    if (!implied) merged.push(requirement);
  }
  return merged;
}

/** Every role that may decide, and the largest quorum: the view's summary of its requirements. */
export function summarize(requirements: Requirement[]): { approvers: string[]; requiredApprovals: number } {
  return {
    approvers: [...new Set(requirements.flatMap((r) => r.roles))],
    requiredApprovals: Math.max(...requirements.map((r) => r.count)),
  };
}

/**
 * What each requirement still needs, as a person reads it in the CLI and the email: `cfo: 1 of 2
 * (large payout: payout: amount > 1000)`.
 */
export function requirementLines(view: { requirements: Requirement[]; approvals: Signoff[] }): string[] {
  const short = missing(view.requirements, view.approvals);
  return view.requirements.map((r, i) => {
    const have = r.count - short[i]!;
    const why = r.tier ? `${r.tier}: ${r.reason}` : r.reason;
    return `${r.roles.join(' or ')}: ${have} of ${r.count}${short[i] === 0 ? ' (met)' : ''} (${why})`;
  });
}
