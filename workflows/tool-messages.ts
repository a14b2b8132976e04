import type { FieldError, JsonValue } from '../protocol/index.js';

/** The text of the tool messages the workflow writes in a tool's place, so the model knows what happened. */

export function resultMessage(result: JsonValue): string {
  return typeof result === 'string' ? result : JSON.stringify(result);
}

export function rejectedMessage(tool: string, by: string[], message: string | undefined): string {
  const who = by.length > 0 ? by.join(', ') : 'a human reviewer';
  const why = message ? ` Their message: "${message}".` : ' They gave no reason.';
  return `A human reviewer (${who}) refused this call to ${tool}; it was not run.${why} Do not retry this call; adapt your plan or tell the user.`;
}

export function expiredMessage(tool: string): string {
  return `No human decided on this call to ${tool} before its deadline, so it was refused and not run. Do not retry this call; tell the user it needs approval.`;
}

export function deniedMessage(tool: string): string {
  return `Policy refuses this call to ${tool} with these arguments; it was not run. Do not retry it; tell the user it is not allowed.`;
}

export function failedMessage(tool: string, error: string): string {
  return `The tool ${tool} failed: ${error}`;
}

export function invalidArgsMessage(tool: string, problems: FieldError[] | string): string {
  const detail =
    typeof problems === 'string'
      ? problems
      : problems.map((p) => `${p.path || '(arguments)'}: ${p.message}`).join('; ');
  return `The arguments for ${tool} are invalid (${detail}); nothing was run. Correct them and call again.`;
}

export function unknownToolMessage(tool: string): string {
  return `There is no tool named ${tool}; nothing was run.`;
}

export function cutFromPlanMessage(tool: string, message: string | undefined): string {
  const why = message ? ` Their message: "${message}".` : '';
  return `A human reviewer removed this call to ${tool} from the plan; it was not run.${why} Do not retry it.`;
}

export function planRejectedMessage(tool: string, by: string[], message: string | undefined): string {
  return rejectedMessage(tool, by, message).replace(
    'refused this call',
    'refused the plan containing this call',
  );
}

export function addedStepMessage(result: string): string {
  return `(A human reviewer added this call to the plan.) ${result}`;
}

export function resultWithheldMessage(tool: string, by: string[], message: string | undefined): string {
  const who = by.length > 0 ? by.join(', ') : 'a human reviewer';
  const why = message ? ` Their message: "${message}".` : '';
  return `The call to ${tool} ran, but a human reviewer (${who}) withheld its result.${why} Do not run it again.`;
}

export function unansweredMessage(): string {
  return 'No human answered this question before its deadline. Continue without the answer or tell the user.';
}
