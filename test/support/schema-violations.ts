import { Validator, type Schema } from '@cfworker/json-schema';

/**
 * Where a value breaks a schema of an OpenAPI document ([] when it fits), the schema's references
 * to the document's components resolved in it.
 */
export function schemaViolations(
  document: { components: { schemas: object } },
  schema: unknown,
  value: unknown,
): string[] {
  // The validator resolves `#/$defs/...` within the schema it is given.
  const root = JSON.parse(
    JSON.stringify({ ...(schema as object), $defs: document.components.schemas }).replaceAll(
      '#/components/schemas/',
      '#/$defs/',
    ),
  ) as Schema;
  const result = new Validator(root, '2020-12', false).validate(value);
  return result.errors.map((e) => `${e.instanceLocation}: ${e.error}`);
}
