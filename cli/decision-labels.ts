import type { ApprovalView, DecisionType } from '../protocol/index.js';

/** The key `watch` takes for each decision. */
export const KEYS: Record<DecisionType, string> = { approve: 'a', edit: 'e', reject: 'r', respond: 's' };

const LABELS: Record<DecisionType, string> = {
  approve: '[a]pprove',
  edit: '[e]dit',
  reject: '[r]eject',
  respond: 're[s]pond',
};

/**
 * What each decision says of a call whose outcome is unknown (kind `outcome`): the decision types
 * are the usual ones, their meaning is not, so every place that offers them says it.
 */
export const OUTCOME_MEANING: Partial<Record<DecisionType, string>> = {
  respond: 'it happened, with its result',
  approve: 'it did not happen: run it again',
  reject: 'it failed',
};

/** What each decision does to a secret a tool asks for (kind `secret`). */
export const SECRET_MEANING: Partial<Record<DecisionType, string>> = {
  respond: 'supply it',
  reject: 'refuse: nobody supplies it',
};

/** What a decision means for an approval of this kind, where the kind changes it. */
export function meaningOf(kind: ApprovalView['kind'], type: DecisionType): string | undefined {
  if (kind === 'outcome') return OUTCOME_MEANING[type];
  if (kind === 'secret') return SECRET_MEANING[type];
  return undefined;
}

/** A decision as `watch` offers it: `[a]pprove`, or for an outcome `[a] it did not happen: run it again`. */
export function menuLabel(kind: ApprovalView['kind'], type: DecisionType): string {
  const meaning = meaningOf(kind, type);
  return meaning ? `[${KEYS[type]}] ${meaning}` : LABELS[type];
}

/** The allowed decisions as a card lists them, each with its meaning where the kind changes it. */
export function decisionList(approval: Pick<ApprovalView, 'kind' | 'allowedDecisions'>): string {
  return approval.allowedDecisions
    .map((type) => {
      const meaning = meaningOf(approval.kind, type);
      return meaning ? `${type} (${meaning})` : type;
    })
    .join(', ');
}
