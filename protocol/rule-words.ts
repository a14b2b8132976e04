import type { JsonValue } from './json.js';
import type { ComparisonOp, Condition, RunCountCondition, RunTotalCondition, TotalOp } from './policy.js';

/** How a condition's numbers read. */
export interface RuleWordsOptions {
  /** The currency sign of an argument (a dotted path) that is money; plain numbers have none. */
  currency?: (path: string) => string | undefined;
  /** Where a running total or count stands with the call being judged, to say it beside the bound. */
  now?: (condition: RunTotalCondition | RunCountCondition) => number;
}

/**
 * A policy condition as a person reads it, one text for every channel: `amount over $1,000 and at
 * most $100,000`, `supplier is one of acme, globex`, `more than 3 calls in this run`. Negations are
 * said as what they mean (`not amount > 100000` reads `amount at most 100000`), and bounds on one
 * value are said together. Pure: the workflow, the API and the clients all use it.
 *
 * @example
 * ```ts
 * conditionWords(
 *   { all: [{ not: { arg: 'amount', op: 'gt', value: 100_000 } }, { arg: 'amount', op: 'gt', value: 1000 }] },
 *   { currency: (path) => (path === 'amount' ? '$' : undefined) },
 * ); // 'amount over $1,000 and at most $100,000'
 * ```
 */
export function conditionWords(condition: Condition, options: RuleWordsOptions = {}): string {
  return phrase(positive(condition), options, false);
}

/**
 * The currency sign a policy's description writes before an argument (`Transfer ${{amount}}`): how
 * the policy says that argument is money.
 *
 * @example
 * ```ts
 * const currency = currencySigns('Refund €{{amount}} to {{customer}}');
 * currency('amount'); // '€'
 * currency('customer'); // undefined
 * ```
 */
export function currencySigns(description: string | undefined): (path: string) => string | undefined {
  const signs = new Map<string, string>();
  for (const m of (description ?? '').matchAll(/([$€£¥])\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g))
    signs.set(m[2]!, m[1]!);
  return (path) => signs.get(path);
}

/** A comparison, possibly negated where its negation has no op of its own (`in`, `matches`, `exists`). */
type Leaf = Extract<Condition, { op: unknown }> & { negated?: boolean };
type Normal = Leaf | { all: Normal[] } | { any: Normal[] };

const FLIP: Record<TotalOp, TotalOp> = { gt: 'lte', gte: 'lt', lt: 'gte', lte: 'gt' };
const isOrder = (op: ComparisonOp): op is TotalOp => op in FLIP;

/** The condition with every `not` pushed down to a comparison, and nested lists of one kind flattened. */
function positive(c: Condition): Normal {
  if ('all' in c) return { all: c.all.flatMap((x) => spread(positive(x), 'all')) };
  if ('any' in c) return { any: c.any.flatMap((x) => spread(positive(x), 'any')) };
  if ('not' in c) return negative(c.not);
  return c;
}

function negative(c: Condition): Normal {
  if ('all' in c) return { any: c.all.flatMap((x) => spread(negative(x), 'any')) };
  if ('any' in c) return { all: c.any.flatMap((x) => spread(negative(x), 'all')) };
  if ('not' in c) return positive(c.not);
  if (isOrder(c.op)) return { ...c, op: FLIP[c.op] } as Leaf;
  if ('arg' in c && c.op === 'eq') return { ...c, op: 'ne' };
  if ('arg' in c && c.op === 'ne') return { ...c, op: 'eq' };
  return { ...c, negated: true };
}

function spread(c: Normal, kind: 'all' | 'any'): Normal[] {
  return kind in c ? (c as Record<typeof kind, Normal[]>)[kind] : [c];
}

function phrase(c: Normal | Range, options: RuleWordsOptions, nested: boolean): string {
  if ('range' in c || 'op' in c) return leafWords(c, options);
  const all = 'all' in c;
  const words = (all ? withRanges(c.all) : c.any).map((x) => phrase(x, options, true));
  if (words.length === 0) return all ? 'always' : 'never';
  const joined = words.join(all ? ' and ' : ' or ');
  return nested && words.length > 1 ? `(${joined})` : joined;
}

/** Two bounds on one value, said as one range: `amount over $1,000 and at most $100,000`. */
interface Range {
  range: [Leaf, Leaf];
}

/** What an ordered comparison bounds: an argument, a running total, or the run's count of calls. */
function subjectOf(leaf: Leaf): string | undefined {
  if (!isOrder(leaf.op) || typeof leaf.value !== 'number') return undefined;
  if ('runTotal' in leaf) return `total:${leaf.runTotal}`;
  if ('runCount' in leaf) return 'count';
  return `arg:${leaf.arg}`;
}

/** Keeps the tightest lower and upper bound of each value, said together where the first one was. */
function withRanges(items: Normal[]): (Normal | Range)[] {
  const bounds = new Map<string, { lower?: Leaf; upper?: Leaf }>();
  for (const item of items) {
    const subject = 'op' in item ? subjectOf(item) : undefined;
    if (subject === undefined) continue;
    const leaf = item as Leaf;
    const b = bounds.get(subject) ?? {};
    const value = leaf.value as number;
    if (leaf.op === 'gt' || leaf.op === 'gte') {
      const at = b.lower?.value as number | undefined;
      if (at === undefined || value > at || (value === at && leaf.op === 'gt')) b.lower = leaf;
    } else {
      const at = b.upper?.value as number | undefined;
      if (at === undefined || value < at || (value === at && leaf.op === 'lt')) b.upper = leaf;
    }
    bounds.set(subject, b);
  }
  const said = new Set<string>();
  return items.flatMap((item): (Normal | Range)[] => {
    const subject = 'op' in item ? subjectOf(item) : undefined;
    if (subject === undefined) return [item];
    if (said.has(subject)) return [];
    said.add(subject);
    const { lower, upper } = bounds.get(subject)!;
    return lower && upper ? [{ range: [lower, upper] }] : [(lower ?? upper)!];
  });
}

const ORDER_WORDS: Record<TotalOp, string> = { gt: 'over', gte: 'at least', lt: 'under', lte: 'at most' };
const COUNT_WORDS: Record<TotalOp, string> = {
  gt: 'more than',
  gte: 'at least',
  lt: 'fewer than',
  lte: 'at most',
};
/** Strings have an order too, but not of size. */
const TEXT_ORDER_WORDS: Record<TotalOp, string> = {
  gt: 'after',
  gte: 'at or after',
  lt: 'before',
  lte: 'at or before',
};

function leafWords(item: Leaf | Range, options: RuleWordsOptions): string {
  const [first, second] = 'range' in item ? item.range : [item, undefined];
  if ('runCount' in first) {
    const bounds = [first, second]
      .filter((b): b is Leaf => b !== undefined)
      .map((b) => `${COUNT_WORDS[b.op as TotalOp]} ${b.value as number}`);
    const last = (second ?? first).value;
    const now = options.now ? ` (${options.now(first as RunCountCondition)} with this one)` : '';
    return `${bounds.join(' and ')} ${last === 1 ? 'call' : 'calls'} in this run${now}`;
  }
  const path = 'runTotal' in first ? first.runTotal : first.arg;
  const sign = options.currency?.(path);
  const subject =
    'runTotal' in first
      ? `the run's total of ${path}${options.now ? ` (${number(options.now(first as RunTotalCondition), sign)} with this call)` : ''}`
      : path;
  const bound = (b: Leaf) =>
    typeof b.value === 'string'
      ? `${TEXT_ORDER_WORDS[b.op as TotalOp]} ${value(b.value, sign)}`
      : `${ORDER_WORDS[b.op as TotalOp]} ${value(b.value, sign)}`;
  if (second) return `${subject} ${bound(first)} and ${bound(second)}`;
  if (isOrder(first.op)) return `${subject} ${bound(first)}`;
  const not = first.negated === true;
  switch (first.op) {
    case 'eq':
      return `${subject} is ${value(first.value, sign)}`;
    case 'ne':
      return `${subject} is not ${value(first.value, sign)}`;
    case 'exists':
      return `${subject} is ${not ? 'not set' : 'set'}`;
    case 'matches':
      return `${subject} ${not ? 'does not match' : 'matches'} /${String(first.value)}/`;
    case 'in': {
      const list = Array.isArray(first.value) ? first.value : [];
      if (list.length === 1) return `${subject} is ${not ? 'not ' : ''}${value(list[0], sign)}`;
      const names = list.length > 0 ? list.map((v) => value(v, sign)).join(', ') : 'nothing listed';
      return `${subject} is ${not ? 'none' : 'one'} of ${names}`;
    }
  }
}

/** A value as words: a plain name bare, a number with its currency sign, anything else as JSON. */
function value(v: JsonValue | undefined, sign: string | undefined): string {
  if (typeof v === 'number') return number(v, sign);
  if (typeof v === 'string' && /^[\p{L}\p{N}_.@:/+-]+$/u.test(v)) return v;
  return JSON.stringify(v ?? null);
}

/** Money with its sign and thousands separators (`$100,000`, `$2,500.50`); other numbers as written. */
function number(n: number, sign: string | undefined): string {
  if (sign === undefined || !Number.isFinite(n)) return String(n);
  const [whole, cents] = (Number.isInteger(n) ? String(Math.abs(n)) : Math.abs(n).toFixed(2)).split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${n < 0 ? '-' : ''}${sign}${grouped}${cents !== undefined ? `.${cents}` : ''}`;
}
