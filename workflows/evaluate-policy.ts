import { DEFAULT_POLICY } from '../protocol/generated/workflow-schemas.js';
import type {
  ApprovalPolicy,
  Condition,
  JsonObject,
  JsonValue,
  PolicyRule,
  ToolSpec,
  Verdict,
} from '../protocol/index.js';

/** A tool with no policy gets the default one: a human decides. Safe by default. */
export { DEFAULT_POLICY };

export function policyOf(tool: ToolSpec): ApprovalPolicy {
  return tool.approval ?? DEFAULT_POLICY;
}

/** Decides one proposed call: run it, ask a human, or refuse. Pure and deterministic. */
export function evaluatePolicy(tool: ToolSpec, args: JsonObject): Verdict {
  if (tool.safe) return 'auto';
  return evaluateRule(policyOf(tool).when, args);
}

function evaluateRule(rule: PolicyRule, args: JsonObject): Verdict {
  if (typeof rule === 'string') return rule;
  return evaluateRule(evaluateCondition(rule.if, args) ? rule.then : rule.else, args);
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
