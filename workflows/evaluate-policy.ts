import { DEFAULT_POLICY } from '../protocol/generated/workflow-schemas.js';
import type {
  ApprovalPolicy,
  Condition,
  JsonObject,
  JsonValue,
  PolicyRule,
  Reminder,
  Requirement,
  StandingTerms,
  TimeoutAction,
  ToolSpec,
  Verdict,
} from '../protocol/index.js';
import { conditionWords, currencySigns } from '../protocol/rule-words.js';

/** A tool with no policy gets the default one: a human decides. Safe by default. */
export { DEFAULT_POLICY };

export function policyOf(tool: ToolSpec): ApprovalPolicy {
  return tool.approval ?? DEFAULT_POLICY;
}

/** Who must approve a gated call, and by when: its tier, completed from the tool's policy. */
export interface ResolvedTier {
  name?: string;
  approvers: string[];
  requiredApprovals: number;
  deadlineSeconds: number;
  onTimeout: TimeoutAction;
  /** Reminders before the deadline: the tier's, else the policy's. */
  remind?: Reminder[];
  /** The standing approvals it offers: the tier's (none when `false`), else the policy's. */
  standing?: StandingTerms;
}

/** What the policy says of one call, and why: the conditions on the path it took. */
export type PolicyDecision =
  | { verdict: 'auto'; because: string }
  | { verdict: 'deny'; because: string }
  | { verdict: 'approve'; because: string; tier: ResolvedTier };

/**
 * What the run already counts of one tool's calls, the call being judged left out: what cumulative
 * limits (`runTotal`, `runCount`) add this call to.
 */
export interface CallTotals {
  /** The total of a numeric argument (a dotted path) over the counted calls. */
  sum(path: string): number;
  count(): number;
}

/** No call counted yet: the call being judged is the run's first. */
export const NO_TOTALS: CallTotals = { sum: () => 0, count: () => 0 };

/**
 * Decides one proposed (or edited) call: run it, ask a human, or refuse. Pure and deterministic:
 * `totals` is what the run counts of the tool's other calls, for cumulative limits.
 */
export function evaluatePolicy(
  tool: ToolSpec,
  args: JsonObject,
  totals: CallTotals = NO_TOTALS,
): PolicyDecision {
  if (tool.safe) return { verdict: 'auto', because: `${tool.name} is marked safe` };
  const policy = policyOf(tool);
  const path: Condition[] = [];
  let rule: PolicyRule = policy.when;
  while (typeof rule === 'object' && 'if' in rule) {
    const holds = evaluateCondition(rule.if, args, totals);
    path.push(holds ? rule.if : { not: rule.if });
    rule = holds ? rule.then : rule.else;
  }
  // In words, the same in every channel; a running total says where this call brings the run.
  const words = conditionWords(
    { all: path },
    { currency: currencySigns(policy.description), now: (c) => runValue(c, args, totals) },
  );
  const because = `${tool.name}: ${path.length > 0 ? words : 'its policy'}`;
  if (rule === 'auto' || rule === 'deny') return { verdict: rule, because };
  const tier = typeof rule === 'object' ? rule.approve : {};
  return {
    verdict: 'approve',
    because,
    tier: {
      ...(tier.name !== undefined ? { name: tier.name } : {}),
      approvers: tier.approvers ?? policy.approvers,
      requiredApprovals: tier.requiredApprovals ?? policy.requiredApprovals,
      deadlineSeconds: tier.deadlineSeconds ?? policy.deadlineSeconds,
      onTimeout: tier.onTimeout ?? policy.onTimeout,
      ...((tier.remind ?? policy.remind) ? { remind: tier.remind ?? policy.remind } : {}),
      ...standingOf(tier.standing, policy.standing),
    },
  };
}

/** A tier's standing terms, or its policy's where it names none; `false` offers none. */
function standingOf(
  tier: StandingTerms | false | undefined,
  policy: StandingTerms | undefined,
): { standing?: StandingTerms } {
  const standing = tier === undefined ? policy : tier;
  return standing ? { standing } : {};
}

/** The verdict alone. */
export function verdictOf(tool: ToolSpec, args: JsonObject, totals: CallTotals = NO_TOTALS): Verdict {
  return evaluatePolicy(tool, args, totals).verdict;
}

/** The requirement a tier puts on an approval. */
export function requirementOf(decision: Extract<PolicyDecision, { verdict: 'approve' }>): Requirement {
  return {
    roles: decision.tier.approvers,
    count: decision.tier.requiredApprovals,
    reason: decision.because,
    ...(decision.tier.name !== undefined ? { tier: decision.tier.name } : {}),
  };
}

/** Where this call brings a running total or count: the run's other counted calls, and this one. */
function runValue(
  condition: Extract<Condition, { runTotal: string } | { runCount: true }>,
  args: JsonObject,
  totals: CallTotals,
): number {
  if ('runCount' in condition) return totals.count() + 1;
  return totals.sum(condition.runTotal) + numberAt(args, condition.runTotal);
}

/**
 * A call's numeric argument at `path`, for running totals: absent adds nothing; present and not a
 * finite number (a schema that lets `"5000"` through) counts as past every bound, never as zero.
 */
export function numberAt(args: JsonObject, path: string): number {
  const value = lookup(args, path);
  if (value === undefined || value === null) return 0;
  return typeof value === 'number' && Number.isFinite(value) ? value : Number.MAX_VALUE;
}

export function evaluateCondition(
  condition: Condition,
  args: JsonObject,
  totals: CallTotals = NO_TOTALS,
): boolean {
  if ('all' in condition) return condition.all.every((c) => evaluateCondition(c, args, totals));
  if ('any' in condition) return condition.any.some((c) => evaluateCondition(c, args, totals));
  if ('not' in condition) return !evaluateCondition(condition.not, args, totals);
  if ('runTotal' in condition || 'runCount' in condition)
    return compare(runValue(condition, args, totals), condition.value, condition.op);
  const actual = lookup(args, condition.arg);
  const expected = condition.value;
  switch (condition.op) {
    case 'exists':
      return actual !== undefined && actual !== null;
    case 'eq':
      return actual !== undefined && sameJson(actual, expected);
    case 'ne':
      return actual === undefined || !sameJson(actual, expected);
    case 'in':
      return actual !== undefined && Array.isArray(expected) && expected.some((v) => sameJson(actual, v));
    case 'matches':
      return (
        typeof actual === 'string' &&
        typeof expected === 'string' &&
        safeRegExp(expected)?.test(actual) === true
      );
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return compare(actual, expected, condition.op);
  }
}

/** `arg` is a top-level argument name or a dotted path into nested objects. */
function lookup(args: JsonObject, path: string): JsonValue | undefined {
  let current: JsonValue | undefined = args;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = current[key];
  }
  return current;
}

function compare(
  actual: JsonValue | undefined,
  expected: JsonValue | undefined,
  op: 'gt' | 'gte' | 'lt' | 'lte',
): boolean {
  const bothNumbers = typeof actual === 'number' && typeof expected === 'number';
  const bothStrings = typeof actual === 'string' && typeof expected === 'string';
  if (!bothNumbers && !bothStrings) return false;
  const a = actual as number | string;
  const b = expected as number | string;
  if (op === 'gt') return a > b;
  if (op === 'gte') return a >= b;
  if (op === 'lt') return a < b;
  return a <= b;
}

/** A malformed pattern matches nothing rather than failing the workflow task forever. */
function safeRegExp(pattern: string): RegExp | null {
  try {
    return new RegExp(pattern);
  } catch {
    return null;
  }
}

function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The arguments a tool's policy keeps running totals of, and whether it counts calls: what the run
 * must remember of each call of it. Undefined for a tool whose policy has no cumulative limit.
 */
export function runTotalsOf(tool: ToolSpec): { paths: string[]; counts: boolean } | undefined {
  if (tool.safe) return undefined;
  const paths = new Set<string>();
  let counts = false;
  const visitCondition = (c: Condition): void => {
    if ('all' in c) c.all.forEach(visitCondition);
    else if ('any' in c) c.any.forEach(visitCondition);
    else if ('not' in c) visitCondition(c.not);
    else if ('runTotal' in c) paths.add(c.runTotal);
    else if ('runCount' in c) counts = true;
  };
  const visitRule = (rule: PolicyRule): void => {
    if (typeof rule !== 'object' || !('if' in rule)) return;
    visitCondition(rule.if);
    visitRule(rule.then);
    visitRule(rule.else);
  };
  visitRule(policyOf(tool).when);
  return paths.size > 0 || counts ? { paths: [...paths], counts } : undefined;
}
