import { invalid } from './errors.js';
import type { AttrType } from './search-attributes.js';

/**
 * The list-filter subset (Temporal's SQL-like visibility query):
 *   expr      := orExpr [ORDER BY name [ASC|DESC] {, name [ASC|DESC]}]
 *   orExpr    := andExpr {OR andExpr}
 *   andExpr   := unary {AND unary}
 *   unary     := NOT unary | '(' orExpr ')' | predicate
 *   predicate := name op value | name [NOT] IN (value {, value}) | name [NOT] BETWEEN value AND value
 *              | name STARTS_WITH value | name IS [NOT] NULL
 *   op        := = | != | <> | > | >= | < | <=
 * Names may be `back-quoted`; values are 'single' or "double" quoted strings, numbers, true/false.
 */
export type Value = string | number | boolean | string[] | null;
export interface Row {
  get(name: string): Value;
}
export type Resolver = (name: string) => AttrType | undefined;
export interface CompiledFilter {
  matches(row: Row): boolean;
  order: { name: string; desc: boolean }[];
}

type Tok = { t: 'id' | 'str' | 'num' | 'op' | 'punct'; v: string };

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      let v = '';
      while (j < src.length && src[j] !== c) {
        if (src[j] === '\\' && j + 1 < src.length) j++;
        v += src[j++];
      }
      if (j >= src.length) throw invalid(`list filter: unterminated string at ${i}`);
      out.push({ t: 'str', v });
      i = j + 1;
    } else if (c === '`') {
      const j = src.indexOf('`', i + 1);
      if (j < 0) throw invalid(`list filter: unterminated name at ${i}`);
      out.push({ t: 'id', v: src.slice(i + 1, j) });
      i = j + 1;
    } else if (/[<>=!]/.test(c)) {
      const two = src.slice(i, i + 2);
      const op = ['<=', '>=', '!=', '<>'].includes(two) ? two : c;
      if (op === '!') throw invalid(`list filter: unexpected '!' at ${i}`);
      out.push({ t: 'op', v: op === '<>' ? '!=' : op });
      i += op.length;
    } else if (c === '(' || c === ')' || c === ',') {
      out.push({ t: 'punct', v: c });
      i++;
    } else if (/[-+0-9.]/.test(c)) {
      const m = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(src.slice(i));
      if (!m) throw invalid(`list filter: bad number at ${i}`);
      out.push({ t: 'num', v: m[0] });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(src.slice(i))!;
      out.push({ t: 'id', v: m[0] });
      i += m[0].length;
    } else {
      throw invalid(`list filter: unexpected character ${JSON.stringify(c)} at ${i}`);
    }
  }
  return out;
}

type Pred = (row: Row) => boolean;

const STATUS_NAMES = [
  'Running',
  'Completed',
  'Failed',
  'Canceled',
  'Terminated',
  'ContinuedAsNew',
  'TimedOut',
];

/** Parses a literal for the attribute's type; comparisons then work on numbers or strings. */
function literal(tok: Tok, name: string, type: AttrType): string | number | boolean {
  if (tok.t !== 'str' && tok.t !== 'num' && tok.t !== 'id')
    throw invalid(`list filter: expected a value for ${name}`);
  switch (type) {
    case 'Int':
    case 'Double': {
      const n = Number(tok.v);
      if (!Number.isFinite(n))
        throw invalid(`list filter: ${name} expects a number, got ${JSON.stringify(tok.v)}`);
      return n;
    }
    case 'Bool':
      if (/^true$/i.test(tok.v)) return true;
      if (/^false$/i.test(tok.v)) return false;
      throw invalid(`list filter: ${name} expects true or false, got ${JSON.stringify(tok.v)}`);
    case 'Datetime': {
      const ms = tok.t === 'num' ? Number(tok.v) / 1e6 : Date.parse(tok.v);
      if (!Number.isFinite(ms))
        throw invalid(`list filter: ${name} expects an RFC 3339 time, got ${JSON.stringify(tok.v)}`);
      return ms;
    }
    default:
      if (tok.t === 'id' && !(name === 'ExecutionStatus' && STATUS_NAMES.includes(tok.v))) {
        throw invalid(`list filter: ${name} expects a quoted string, got ${tok.v}`);
      }
      if (name === 'ExecutionStatus' && !STATUS_NAMES.includes(tok.v)) {
        throw invalid(
          `list filter: unknown ExecutionStatus ${JSON.stringify(tok.v)} (one of ${STATUS_NAMES.join(', ')})`,
        );
      }
      return tok.v;
  }
}

/** A row value normalized for comparison with literals of the attribute's type. */
function normalize(v: Value, type: AttrType): Value {
  if (v === null || v === undefined) return null;
  // The SDK's untyped search-attribute API writes every value as a list, even scalars.
  if (Array.isArray(v) && type !== 'KeywordList') return v.length > 0 ? normalize(v[0]!, type) : null;
  if (type === 'Datetime' && typeof v === 'string') return Date.parse(v);
  if (type === 'KeywordList' && !Array.isArray(v)) return [String(v)];
  return v;
}

function words(s: string): string[] {
  return s
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter(Boolean);
}

function compare(type: AttrType, op: string, v: Value, lit: string | number | boolean): boolean {
  if (v === null) return false;
  if (type === 'KeywordList') {
    const has = (v as string[]).includes(String(lit));
    if (op === '=') return has;
    if (op === '!=') return !has;
    throw invalid(`list filter: KeywordList supports only =, !=, IN and NOT IN`);
  }
  if (type === 'Text') {
    const hay = new Set(words(String(v)));
    const has = words(String(lit)).every((w) => hay.has(w));
    if (op === '=') return has;
    if (op === '!=') return !has;
    throw invalid(`list filter: Text supports only = and !=`);
  }
  const a = v as string | number | boolean;
  switch (op) {
    case '=':
      return a === lit;
    case '!=':
      return a !== lit;
    case '>':
      return a > lit;
    case '>=':
      return a >= lit;
    case '<':
      return a < lit;
    case '<=':
      return a <= lit;
  }
  throw invalid(`list filter: unknown operator ${op}`);
}

class Parser {
  private i = 0;
  constructor(
    private readonly toks: Tok[],
    private readonly resolve: Resolver,
  ) {}

  private peek(): Tok | undefined {
    return this.toks[this.i];
  }
  private kw(word: string): boolean {
    const t = this.peek();
    if (t?.t === 'id' && t.v.toUpperCase() === word) {
      this.i++;
      return true;
    }
    return false;
  }
  private punct(p: string): boolean {
    const t = this.peek();
    if (t?.t === 'punct' && t.v === p) {
      this.i++;
      return true;
    }
    return false;
  }
  private expectPunct(p: string): void {
    if (!this.punct(p)) throw invalid(`list filter: expected '${p}'${this.where()}`);
  }
  private next(): Tok {
    const t = this.toks[this.i++];
    if (!t) throw invalid('list filter: unexpected end of query');
    return t;
  }
  private where(): string {
    const t = this.peek();
    return t ? ` near ${JSON.stringify(t.v)}` : ' at end of query';
  }

  parse(): CompiledFilter {
    let pred: Pred = () => true;
    const t = this.peek();
    if (t && !(t.t === 'id' && t.v.toUpperCase() === 'ORDER')) pred = this.or();
    const order: CompiledFilter['order'] = [];
    if (this.kw('ORDER')) {
      if (!this.kw('BY')) throw invalid('list filter: expected BY after ORDER');
      do {
        const name = this.next();
        if (name.t !== 'id' || !this.resolve(name.v)) throw invalid(`list filter: cannot order by ${name.v}`);
        const desc = this.kw('DESC') ? true : (this.kw('ASC'), false);
        order.push({ name: name.v, desc });
      } while (this.punct(','));
    }
    if (this.i < this.toks.length) throw invalid(`list filter: unexpected${this.where()}`);
    return { matches: pred, order };
  }

  private or(): Pred {
    const parts = [this.and()];
    while (this.kw('OR')) parts.push(this.and());
    return parts.length === 1 ? parts[0]! : (row) => parts.some((p) => p(row));
  }

  private and(): Pred {
    const parts = [this.unary()];
    while (this.kw('AND')) parts.push(this.unary());
    return parts.length === 1 ? parts[0]! : (row) => parts.every((p) => p(row));
  }

  private unary(): Pred {
    if (this.kw('NOT')) {
      const inner = this.unary();
      return (row) => !inner(row);
    }
    if (this.punct('(')) {
      const inner = this.or();
      this.expectPunct(')');
      return inner;
    }
    return this.predicate();
  }

  private predicate(): Pred {
    const nameTok = this.next();
    if (nameTok.t !== 'id') throw invalid(`list filter: expected a search attribute name${this.where()}`);
    const name = nameTok.v;
    const type = this.resolve(name);
    if (!type) throw invalid(`list filter: unknown search attribute ${name}`);
    const get = (row: Row) => normalize(row.get(name), type);
    if (this.kw('IS')) {
      const not = this.kw('NOT');
      if (!this.kw('NULL')) throw invalid(`list filter: expected NULL after IS${this.where()}`);
      return (row) => (get(row) === null) !== not;
    }
    const not = this.kw('NOT');
    if (this.kw('IN')) {
      this.expectPunct('(');
      const values: (string | number | boolean)[] = [];
      do values.push(literal(this.next(), name, type));
      while (this.punct(','));
      this.expectPunct(')');
      return (row) => {
        const v = get(row);
        if (v === null) return false;
        return values.some((lit) => compare(type, '=', v, lit)) !== not;
      };
    }
    if (this.kw('BETWEEN')) {
      const lo = literal(this.next(), name, type);
      if (!this.kw('AND')) throw invalid(`list filter: expected AND in BETWEEN${this.where()}`);
      const hi = literal(this.next(), name, type);
      return (row) => {
        const v = get(row);
        if (v === null) return false;
        return (compare(type, '>=', v, lo) && compare(type, '<=', v, hi)) !== not;
      };
    }
    if (not) throw invalid(`list filter: expected IN or BETWEEN after NOT${this.where()}`);
    if (this.kw('STARTS_WITH')) {
      const prefix = String(literal(this.next(), name, type));
      return (row) => {
        const v = get(row);
        return typeof v === 'string' && v.startsWith(prefix);
      };
    }
    const op = this.next();
    if (op.t !== 'op') throw invalid(`list filter: expected an operator after ${name}${this.where()}`);
    const lit = literal(this.next(), name, type);
    return (row) => compare(type, op.v, get(row), lit);
  }
}

export function compileFilter(query: string, resolve: Resolver): CompiledFilter {
  return new Parser(tokenize(query), resolve).parse();
}
