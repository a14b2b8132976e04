import { z } from 'zod';

/**
 * Anything that survives JSON: tool arguments, tool results and human answers are all of this shape.
 *
 * @example
 * ```ts
 * import { JsonValue } from 'countersign';
 *
 * const result: JsonValue = { refunded: 250, currency: 'USD', items: ['A-1'] };
 * JsonValue.safeParse(new Date()).success; // false: a tool must return what JSON can carry
 * ```
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/**
 * A JSON object: the shape of a tool call's arguments, as proposed or edited.
 *
 * @example
 * ```ts
 * import { JsonObject } from 'countersign';
 *
 * const args: JsonObject = JsonObject.parse(JSON.parse('{"orderId":"A-1","amount":250}'));
 * ```
 */
export type JsonObject = { [key: string]: JsonValue };

export const JsonValue: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(JsonValue),
    z.record(z.string(), JsonValue),
  ]),
);
export const JsonObject: z.ZodType<JsonObject> = z.record(z.string(), JsonValue);

/**
 * A JSON Schema document, as derived from zod with `z.toJSONSchema` (never written by hand).
 *
 * @example
 * ```ts
 * import type { JsonSchema } from 'countersign';
 *
 * // What an edit of this approval's arguments must satisfy, to build a form from:
 * const schema: JsonSchema = approval.schema;
 * const fields = Object.keys(schema.properties ?? {});
 * ```
 */
export type JsonSchema = { [key: string]: unknown };
export const JsonSchema: z.ZodType<JsonSchema> = z.record(z.string(), z.unknown());
