import { DEFAULT_POLICY } from '../protocol/generated/workflow-schemas.js';
import type {
  ApprovalPolicy,
  Condition,
  JsonObject,
  JsonValue,
  PolicyRule,
  Requirement,
  TimeoutAction,
  ToolSpec,
  Verdict,
} from '../protocol/index.js';

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
}

/** What the policy says of one call, and why: the conditions on the path it took. */
export type PolicyDecision =
  | { verdict: 'auto'; because: string }
  | { verdict: 'deny'; because: string }
  | { verdict: 'approve'; because: string; tier: ResolvedTier };

/** Decides one proposed (or edited) call: run it, ask a human, or refuse. Pure and deterministic. */
export function evaluatePolicy(tool: ToolSpec, args: JsonObject): PolicyDecision {
  if (tool.safe) return { verdict: 'auto', because: `${tool.name} is marked safe` };
  const policy = policyOf(tool);
  const path: string[] = [];
  let rule: PolicyRule = policy.when;
  while (typeof rule === 'object' && 'if' in rule) {
    const holds = evaluateCondition(rule.if, args);
    path.push(holds ? describeCondition(rule.if) : `not (${describeCondition(rule.if)})`);
    rule = holds ? rule.then : rule.else;
  }
  const because = `${tool.name}: ${path.length > 0 ? path.join(' and ') : 'its policy'}`;
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
    },
  };
}

/** The verdict alone. */
export function verdictOf(tool: ToolSpec, args: JsonObject): Verdict {
  return evaluatePolicy(tool, args).verdict;
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

const OPS: Record<Exclude<Condition, { all: unknown } | { any: unknown } | { not: unknown }>['op'], string> =
  {
    gt: '>',
    gte: '>=',
    lt: '<',
    lte: '<=',
    eq: '=',
    ne: '!=',
    in: 'in',
    matches: 'matches',
    exists: 'is set',
  };

/** A condition as a person reads it: `amount > 1000`, `env in ["prod","staging"]`. */
export function describeCondition(condition: Condition): string {
  if ('all' in condition) return condition.all.map(describeCondition).join(' and ');
  if ('any' in condition) return `(${condition.any.map(describeCondition).join(' or ')})`;
  if ('not' in condition) return `not (${describeCondition(condition.not)})`;
  if (condition.op === 'exists') return `${condition.arg} is set`;
  return `${condition.arg} ${OPS[condition.op]} ${JSON.stringify(condition.value)}`;
}

export function evaluateCondition(condition: Condition, args: JsonObject): boolean {
  if ('all' in condition) return condition.all.every((c) => evaluateCondition(c, args));
  if ('any' in condition) return condition.any.some((c) => evaluateCondition(c, args));
  if ('not' in condition) return !evaluateCondition(condition.not, args);
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
