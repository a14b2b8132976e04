import { ApplicationFailure } from '@temporalio/activity';
import type { JsonValue } from '../protocol/index.js';

/** What stands in for a secret a tool let slip into its output or an error. */
export const WITHHELD = '[secret withheld]';

/**
 * Secrets shorter than this are not searched for: a one-character "secret" would blank every text.
 * A tool that takes such short secrets must keep them out of what it returns.
 */
const SHORTEST_SEARCHED = 4;

/**
 * Replaces every secret in a text with {@link WITHHELD}: a tool's output and errors go to the
 * history, the model and the logs, where a secret must never be, even when the tool echoes one.
 */
export function withholder(values: string[]): (text: string) => string {
  const searched = values
    .filter((value) => value.length >= SHORTEST_SEARCHED)
    .sort((a, b) => b.length - a.length);
  return (text) => searched.reduce((out, value) => out.split(value).join(WITHHELD), text);
}

/** A tool's output with its secrets withheld, in keys and values alike. */
export function withholdInOutput(output: JsonValue, withhold: (text: string) => string): JsonValue {
  if (typeof output === 'string') return withhold(output);
  if (Array.isArray(output)) return output.map((item) => withholdInOutput(item, withhold));
  if (output === null || typeof output !== 'object') return output;
  return Object.fromEntries(
    Object.entries(output).map(([key, value]) => [withhold(key), withholdInOutput(value, withhold)]),
  );
}

/**
 * The error a tool threw, rebuilt without its secrets: message and stack (which the failure
 * converter sends to the server), type and retry rule kept; causes and details are dropped.
 */
export function withholdInError(err: unknown, withhold: (text: string) => string): Error {
  const error = err instanceof Error ? err : new Error(String(err));
  const rebuilt =
    error instanceof ApplicationFailure
      ? ApplicationFailure.create({
          message: withhold(error.message),
          type: error.type ?? undefined,
          nonRetryable: error.nonRetryable === true,
        })
      : Object.assign(new Error(withhold(error.message)), { name: error.name });
  rebuilt.stack = withhold(error.stack ?? `${error.name}: ${error.message}`);
  return rebuilt;
}
