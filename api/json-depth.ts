import type { RequestHandler } from 'express';
import { HttpError } from './errors.js';

/**
 * How deeply a request body may nest arrays and objects. Far more than any decision, plan or tool
 * arguments need; far less than what overflows a validator's stack (zod's and the JSON Schema
 * validator's are recursive), which a body of a few hundred kilobytes could otherwise reach.
 */
export const MAX_JSON_DEPTH = 64;

/** Whether `value` nests arrays and objects more than `limit` levels deep; iterative, so any depth is safe. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

/** At the edge, before any validation: a body nested too deeply is a 400 that says so. */
export const limitJsonDepth: RequestHandler = (req, _res, next) => {
  if (nestsDeeperThan(req.body, MAX_JSON_DEPTH)) {
    throw new HttpError(
      400,
      `request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
      { code: 'too_deep' },
    );
  }
  next();
};
