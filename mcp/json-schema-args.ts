import { z } from 'zod';
import type { JsonSchema } from '../protocol/index.js';
import { unescapePointer } from '../protocol/json-pointer.js';
import { validateAgainstSchema } from '../workflows/validate-args.js';

/**
 * A zod schema that checks arguments against a JSON Schema with the validator the workflow uses
 * (`@cfworker/json-schema`). So the API, the worker and the run judge an MCP tool's arguments by the
 * server's own schema, as the server wrote it, with no lossy conversion to zod in between, and an
 * invalid edit gets the field errors (`/args/priority`) a zod tool's would.
 */
export function jsonSchemaArgs(schema: JsonSchema): z.ZodObject {
  return z.looseObject({}).superRefine((args, ctx) => {
    for (const error of validateAgainstSchema(schema, args)) {
      ctx.addIssue({
        code: 'custom',
        message: error.message,
        path: error.path.split('/').slice(1).map(unescapePointer),
        input: args,
      });
    }
  });
}
