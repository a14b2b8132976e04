import { z } from 'zod';

/** Anything that survives JSON: tool arguments, tool results and human answers are all of this shape. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
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

/** A JSON Schema document, as derived from zod with `z.toJSONSchema` (never written by hand). */
export type JsonSchema = { [key: string]: unknown };
export const JsonSchema: z.ZodType<JsonSchema> = z.record(z.string(), z.unknown());
