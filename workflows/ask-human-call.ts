import { ASK_HUMAN_TOOL } from '../protocol/names.js';
import type { JsonObject } from '../protocol/index.js';
import { awaitHumanDecision } from './approval-gate.js';
import { answerSchema } from './ask-human.js';
import { DEFAULT_POLICY } from './evaluate-policy.js';
import type { RunContext } from './run-context.js';
import { resultMessage, unansweredMessage } from './tool-messages.js';

/** The built-in ask_human: the question waits for a human `respond`; the answer is the tool's result. */
export async function askHuman(ctx: RunContext, toolCallId: string, args: JsonObject): Promise<string> {
  const question = String(args.question);
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
