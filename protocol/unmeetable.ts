import type { Requirement } from './approval.js';

/**
 * The requirements the approvers who exist cannot meet, each said in words: fewer people hold one of
 * its roles and may sign it (not the run's requester unless the policy allows self-approval, not
 * those it names in `notBy`) than it needs. Empty when every one can be met. A warning for the
 * person editing a call into such a tier; the workflow, not this, judges the edit.
 *
 * @example
 * ```ts
 * unmeetableRequirements(
 *   [{ roles: ['cfo', 'admin'], count: 2, reason: 'transfer: amount over $100,000', tier: 'large transfer' }],
 *   [{ id: 'admin', roles: ['admin'] }],
 *   { allowSelfApproval: false },
 * ); // ['large transfer (transfer: amount over $100,000) needs 2 approvers with role cfo or admin; only 1 exists']
 * ```
 */
export function unmeetableRequirements(
  requirements: Requirement[],
  approvers: { id: string; roles: string[] }[],
  approval: { requester?: string; allowSelfApproval: boolean },
): string[] {
  return requirements.flatMap((r) => {
    const holders = approvers.filter((a) => a.roles.some((role) => r.roles.includes(role)));
    const barred = (id: string) =>
      r.notBy?.includes(id) === true || (!approval.allowSelfApproval && id === approval.requester);
    const able = holders.filter((a) => !barred(a.id)).length;
    if (able >= r.count) return [];
    const what = r.tier ? `${r.tier} (${r.reason})` : r.reason;
    const needs = `${what} needs ${r.count} ${r.count === 1 ? 'approver' : 'approvers'} with role ${r.roles.join(' or ')}`;
    const excluded = holders.filter((a) => barred(a.id)).map((a) => `${a.id} ${whyBarred(a.id, r)}`);
    if (excluded.length === 0)
      return [`${needs}; ${able === 0 ? 'none exists' : `only ${able} ${able === 1 ? 'exists' : 'exist'}`}`];
    return [`${needs}; ${able === 0 ? 'none' : `only ${able}`} may sign it (${excluded.join(', ')})`];
  });
}

/** Why a holder of the role may not sign: they proposed what it covers, or requested the run. */
function whyBarred(id: string, r: Requirement): string {
  return r.notBy?.includes(id) ? 'proposed what it covers' : 'requested the run';
}
