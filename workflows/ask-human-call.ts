import { ASK_HUMAN_TOOL } from '../protocol/names.js';
import type { JsonObject } from '../protocol/index.js';
import { awaitHumanDecision } from './approval-gate.js';
import { answerSchema } from './ask-human.js';
import { askForSecret } from './supply-secrets.js';
import { DEFAULT_POLICY } from './evaluate-policy.js';
import type { RunContext } from './run-context.js';
import { resultMessage, unansweredMessage } from './tool-messages.js';

/** The built-in ask_human: the question waits for a human `respond`; the answer is the tool's result. */
export async function askHuman(ctx: RunContext, toolCallId: string, args: JsonObject): Promise<string> {
  const question = String(args.question);
  if (typeof args.secret === 'string') return askForCredential(ctx, toolCallId, args.secret, question);
  const view = await awaitHumanDecision(ctx.book, {
    kind: 'question',
    tool: ASK_HUMAN_TOOL,
    toolCallId,
    args,
    question,
    description: question,
    schema: answerSchema(args),
    allowedDecisions: ['respond', 'reject'],
    requirements: [{ roles: DEFAULT_POLICY.approvers, count: 1, reason: 'the agent asked a question' }],
    allowSelfApproval: true,
    deadlineSeconds: DEFAULT_POLICY.deadlineSeconds,
    onTimeout: DEFAULT_POLICY.onTimeout,
  });
  const outcome = view.outcome;
  if (view.status === 'responded' && outcome?.result !== undefined) return resultMessage(outcome.result);
  if (view.status === 'rejected') {
    const why = outcome?.message ? `: "${outcome.message}"` : '';
    return `The human declined to answer${why}. Continue without the answer or tell the user.`;
  }
  return unansweredMessage();
}

/**
 * ask_human for a secret: a person supplies it, sealed, to the run's tools that declare it. The
 * model is told who supplied it and which tools will receive it, never the value.
 */
async function askForCredential(
  ctx: RunContext,
  toolCallId: string,
  name: string,
  question: string,
): Promise<string> {
  const users = [...ctx.tools.values()].filter((tool) =>
    tool.secrets?.some((secret) => secret.name === name),
  );
  const spec = users[0]?.secrets?.find((secret) => secret.name === name);
  if (!spec)
    return `No tool of yours needs a secret named "${name}": ask for it as a plain question, or not at all.`;
  const held = await askForSecret(ctx, spec, users[0]!, toolCallId, undefined, undefined, question);
  if (typeof held === 'string')
    return `The secret was not supplied: ${held}. Continue without it or tell the user.`;
  const tools = users.map((tool) => tool.name).join(', ');
  const lasts = spec.keep === 'run' ? 'every call of' : 'the next call of';
  return `${held.by.join(', ') || 'A person'} supplied the secret "${name}". You never see it: ${lasts} ${tools} receives it.`;
}
