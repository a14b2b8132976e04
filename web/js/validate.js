// @ts-check
// Inline feedback while typing, from the JSON Schema library the workflow checks every decision
// with (workflows/validate-args.ts), which the router serves beside this page. The server checks
// again, with the tool's own zod schema too, and its field errors are shown the same way.
import { Validator } from '../vendor/json-schema/index.js';

/** @typedef {import('../vendor/json-schema/index.js').OutputUnit} OutputUnit */
/** @typedef {{ path: string, message: string }} FieldProblem */

/** @type {WeakMap<object, Validator>} */
const compiled = new WeakMap();

/** Keywords whose error only says that something below failed; the error below says what. */
const SUMMARIES = new Set([
  'properties',
  'items',
  'prefixItems',
  'additionalProperties',
  'patternProperties',
  'allOf',
  '$ref',
  '$dynamicRef',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'contains',
]);

/** Alternatives fail as a whole: what each one found would only confuse. */
const ALTERNATIVES = new Set(['anyOf', 'oneOf']);

const FORMATS = /** @type {Record<string, string>} */ ({
  email: 'must be an email address',
  'date-time': 'must be a date and time',
  date: 'must be a date',
  time: 'must be a time',
  uri: 'must be a URL',
  url: 'must be a URL',
  uuid: 'must be a UUID',
});

const WRONG_FORMAT = 'has the wrong format';

/** @param {number} n @param {string} noun */
const count = (n, noun) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** A keyword's failure in the inbox's words, from the keyword's value in the schema. */
const WORDS = /** @type {Record<string, ((value: any) => string) | undefined>} */ ({
  type: (type) => `must be ${[type].flat().join(' or ')}`,
  const: (value) => `must be ${JSON.stringify(value)}`,
  enum: (options) =>
    `must be one of ${options.map((/** @type {unknown} */ o) => JSON.stringify(o)).join(', ')}`,
  minimum: (n) => `must be at least ${n}`,
  maximum: (n) => `must be at most ${n}`,
  exclusiveMinimum: (n) => `must be more than ${n}`,
  exclusiveMaximum: (n) => `must be less than ${n}`,
  multipleOf: (n) => `must be a multiple of ${n}`,
  minLength: (n) => `must have at least ${count(n, 'character')}`,
  maxLength: (n) => `must have at most ${count(n, 'character')}`,
  minItems: (n) => `must have at least ${count(n, 'item')}`,
  maxItems: (n) => `must have at most ${count(n, 'item')}`,
  minProperties: (n) => `must have at least ${count(n, 'field')}`,
  maxProperties: (n) => `must have at most ${count(n, 'field')}`,
  uniqueItems: () => 'must not hold the same item twice',
  pattern: () => WRONG_FORMAT,
  format: (format) => FORMATS[format] ?? `must be a valid ${format}`,
  anyOf: () => 'does not match any allowed form',
  oneOf: () => 'must match exactly one allowed form',
  not: () => 'is not allowed',
});

/**
 * What is wrong with `value` under `schema`, each problem at its path (`a.b.0`, '' for the value
 * itself) in the inbox's own words; none when it is valid.
 * @param {unknown} schema
 * @param {unknown} value
 * @returns {FieldProblem[]}
 */
export function validate(schema, value) {
  if (!schema || typeof schema !== 'object' || value === undefined) return [];
  let validator = compiled.get(schema);
  if (!validator) {
    validator = new Validator(schema, '2020-12', false);
    compiled.set(schema, validator);
  }
  const { valid, errors } = validator.validate(value);
  if (valid) return [];
  const alternatives = errors.filter((unit) => ALTERNATIVES.has(unit.keyword));
  const leaves = errors.filter(
    (unit) => !SUMMARIES.has(unit.keyword) && !alternatives.some((alt) => alt !== unit && within(unit, alt)),
  );
  /** @type {Map<string, FieldProblem>} */
  const found = new Map();
  const formatted = new Set();
  for (const unit of leaves.length > 0 ? leaves : errors) {
    if (unit.keyword === 'format') formatted.add(pathOf(segments(unit.instanceLocation)));
    for (const problem of problems(unit, schema, value))
      found.set(`${problem.path}\n${problem.message}`, problem);
  }
  // zod writes a string format as a pattern too: where the format failed, its words say more.
  return [...found.values()].filter((p) => !(p.message === WRONG_FORMAT && formatted.has(p.path)));
}

/**
 * An error's problems: `required` names each missing field (the library says which only in its
 * prose), a `false` schema is a field or item the schema does not allow.
 * @param {OutputUnit} unit
 * @param {object} schema
 * @param {unknown} value
 * @returns {FieldProblem[]}
 */
function problems(unit, schema, value) {
  const at = segments(unit.instanceLocation);
  const path = pathOf(at);
  if (unit.keyword === 'required') {
    const instance = valueAt(value, at);
    const required = schemaAt(schema, segments(unit.keywordLocation));
    if (!Array.isArray(required) || !instance || typeof instance !== 'object')
      return [{ path, message: unit.error }];
    return required
      .filter((key) => !Object.hasOwn(instance, key))
      .map((key) => ({ path: pathOf([...at, key]), message: 'is required' }));
  }
  if (unit.keyword === 'false') {
    const parent = valueAt(value, at.slice(0, -1));
    const field = parent !== null && typeof parent === 'object' && !Array.isArray(parent);
    return [{ path, message: field ? 'is not a known field' : 'is not allowed' }];
  }
  const words = WORDS[unit.keyword];
  const keywordValue = schemaAt(schema, segments(unit.keywordLocation));
  return [{ path, message: words && keywordValue !== undefined ? words(keywordValue) : unit.error }];
}

/**
 * Whether an error was found inside a failed alternative. A `false` schema's error gives its
 * instance's place as its keyword's, so it is placed by the instance instead.
 * @param {OutputUnit} unit
 * @param {OutputUnit} alternative
 */
function within(unit, alternative) {
  if (unit.keywordLocation.startsWith(`${alternative.keywordLocation}/`)) return true;
  return (
    unit.keyword === 'false' &&
    (unit.instanceLocation === alternative.instanceLocation ||
      unit.instanceLocation.startsWith(`${alternative.instanceLocation}/`))
  );
}

/**
 * A location (`#/a/b~1c/0`, each segment URI-encoded) as its segments.
 * @param {string} location
 */
function segments(location) {
  return location
    .replace(/^#/, '')
    .split('/')
    .slice(1)
    .map((segment) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** @param {string[]} at */
const pathOf = (at) => at.join('.');

/**
 * @param {unknown} value
 * @param {string[]} at
 * @returns {unknown}
 */
function valueAt(value, at) {
  let node = value;
  for (const segment of at)
    node = node && typeof node === 'object' ? /** @type {any} */ (node)[segment] : undefined;
  return node;
}

/**
 * What a keyword location names in the schema. The location is the path the check took, so a
 * `$ref` segment steps into the schema it refers to (within this schema; others are not followed).
 * @param {object} schema
 * @param {string[]} at
 * @returns {unknown}
 */
function schemaAt(schema, at) {
  /** @type {any} */
  let node = schema;
  for (const segment of at) {
    if (segment === '$ref' && typeof node?.$ref === 'string') {
      node = node.$ref.startsWith('#') ? valueAt(schema, segments(node.$ref)) : undefined;
    } else {
      node = node && typeof node === 'object' ? node[segment] : undefined;
    }
  }
  return node;
}
