import { z } from 'zod';
import type { FieldError, JsonSchema } from '../protocol/index.js';

const compiled = new WeakMap<JsonSchema, z.ZodType>();

/**
 * Checks a value against a tool's JSON Schema (derived from its zod schema), returning field-level
 * errors with JSON pointer paths; empty when valid. Pure: the workflow and the API both use it.
 */
export function validateAgainstSchema(schema: JsonSchema, value: unknown, prefix = ''): FieldError[] {
  let validator = compiled.get(schema);
  if (!validator) {
    validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    compiled.set(schema, validator);
  }
  const result = validator.safeParse(value);
  if (result.success) return [];
  return result.error.issues.map((issue) => ({
    path: prefix + issue.path.map((part) => `/${String(part)}`).join(''),
    message: issue.message,
  }));
}
