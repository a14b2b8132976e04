import { Validator, type OutputUnit, type Schema } from '@cfworker/json-schema';
import type { FieldError, JsonSchema } from '../protocol/index.js';
import { escapePointer } from '../protocol/json-pointer.js';

const compiled = new WeakMap<JsonSchema, Validator>();

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

/**
 * Checks a value against a tool's JSON Schema (derived from its zod schema), returning field-level
 * errors with JSON pointer paths; empty when valid. Pure and free of zod, so the workflow bundle
 * stays small: the API checks the same values with the tools' zod schemas first.
 */
export function validateAgainstSchema(schema: JsonSchema, value: unknown, prefix = ''): FieldError[] {
  let validator = compiled.get(schema);
  if (!validator) {
    validator = new Validator(schema as Schema, '2020-12', false);
    compiled.set(schema, validator);
  }
  const { valid, errors } = validator.validate(value);
  if (valid) return [];
  const leaves = errors.filter((unit) => !SUMMARIES.has(unit.keyword));
  const found = new Map<string, FieldError>();
  for (const unit of leaves.length > 0 ? leaves : errors) {
    const error = fieldError(unit, prefix);
    if (!found.has(error.path)) found.set(error.path, error);
  }
  return [...found.values()];
}

function fieldError(unit: OutputUnit, prefix: string): FieldError {
  const at = prefix + unit.instanceLocation.replace(/^#/, '');
  if (unit.keyword === 'required') {
    const missing = /required property "(.*)"/.exec(unit.error)?.[1];
    if (missing !== undefined) return { path: `${at}/${escapePointer(missing)}`, message: 'required' };
  }
  // A property the schema does not allow fails the `false` schema additionalProperties stands for.
  if (unit.keyword === 'false') return { path: at, message: 'not a field of this schema' };
  return { path: at, message: unit.error };
}
