// A small JSON Schema check (the subset zod's toJSONSchema emits for tool parameters) for inline
// feedback while typing. The server checks again with the tool's own zod schema, and its field
// errors are shown the same way.
const typeOf = (v) =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;

function typeMatches(expected, value) {
  const actual = typeOf(value);
  if (expected === 'number') return actual === 'number' || actual === 'integer';
  return actual === expected;
}

export function validate(schema, value, path = '') {
  if (!schema || typeof schema !== 'object') return [];
  const errors = [];
  const at = (message) => errors.push({ path, message });
  if (schema.anyOf || schema.oneOf) {
    const options = schema.anyOf ?? schema.oneOf;
    if (!options.some((option) => validate(option, value, path).length === 0))
      at('does not match any allowed form');
    return errors;
  }
  if (schema.allOf) for (const part of schema.allOf) errors.push(...validate(part, value, path));
  if (schema.const !== undefined && JSON.stringify(schema.const) !== JSON.stringify(value))
    at(`must be ${JSON.stringify(schema.const)}`);
  if (schema.enum && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))) {
    at(`must be one of ${schema.enum.map((o) => JSON.stringify(o)).join(', ')}`);
  }
  const types = schema.type === undefined ? [] : [].concat(schema.type);
  if (types.length > 0 && !types.some((t) => typeMatches(t, value))) {
    at(`must be ${types.join(' or ')}`);
    return errors;
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) at(`must be at least ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) at(`must be at most ${schema.maximum}`);
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum)
      at(`must be more than ${schema.exclusiveMinimum}`);
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum)
      at(`must be less than ${schema.exclusiveMaximum}`);
    // Compared on the quotient, so 19.99 is a multiple of 0.01 despite binary fractions.
    if (schema.multipleOf !== undefined) {
      const quotient = value / schema.multipleOf;
      if (Math.abs(quotient - Math.round(quotient)) > 1e-9) at(`must be a multiple of ${schema.multipleOf}`);
    }
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength)
      at(`must have at least ${schema.minLength} characters`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength)
      at(`must have at most ${schema.maxLength} characters`);
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value))
      at('has the wrong format');
    if (schema.format === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value))
      at('must be an email address');
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems)
      at(`must have at least ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      at(`must have at most ${schema.maxItems} items`);
    if (schema.items) value.forEach((item, i) => errors.push(...validate(schema.items, item, join(path, i))));
  }
  if (typeOf(value) === 'object') {
    for (const key of schema.required ?? [])
      if (!(key in value)) errors.push({ path: join(path, key), message: 'is required' });
    for (const [key, item] of Object.entries(value)) {
      const property = schema.properties?.[key];
      if (property) errors.push(...validate(property, item, join(path, key)));
      else if (schema.additionalProperties === false)
        errors.push({ path: join(path, key), message: 'is not a known field' });
      else if (typeof schema.additionalProperties === 'object')
        errors.push(...validate(schema.additionalProperties, item, join(path, key)));
    }
  }
  return errors;
}

const join = (path, key) => (path ? `${path}.${key}` : String(key));
