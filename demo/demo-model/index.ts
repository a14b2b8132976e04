import {
  serveChatCompletions,
  type AssistantReply,
  type ChatCompletionRequest,
  type ChatCompletionsServer,
} from 'countersign/dev';
import { readConversation, type Conversation } from './conversation.js';
import { heedCorrections } from './corrections.js';
import { answer } from './reply.js';
import { bankRule } from './rules/bank.js';
import { loanRule } from './rules/loan.js';
import { opsRule } from './rules/ops.js';
import { sqlRule } from './rules/sql.js';
import { supportRule } from './rules/support.js';

/** Each demo agent is recognised by a tool only it offers, so the model needs no agent name. */
const RULES: [string, (conversation: Conversation) => AssistantReply][] = [
  ['transfer', bankRule],
  ['assess_risk', loanRule],
  ['run_shell_command', opsRule],
  ['execute_sql_query', sqlRule],
  ['send_email', supportRule],
];

/**
 * The offline demo model: deterministic rules that turn the demo agents' plain requests into
 * tool calls and read the results back. It stands in for a real model so `npm start` needs no key.
 */
export function demoModel(request: ChatCompletionRequest): AssistantReply {
  const conversation = readConversation(request);
  const rule = RULES.find(([tool]) => conversation.tools.has(tool));
  if (!rule) {
    return answer(
      'I am the offline rule-based demo model and only know the demo agents (loan-approval, bank-transfer, ops, sql-analyst, support-email).',
      'Set OPENAI_API_KEY (and OPENAI_BASE_URL for another endpoint) to use a real model.',
    );
  }
  // A correction given on resume is read before the rule goes on (or does not).
  return conversation.corrections.length > 0 ? heedCorrections(conversation, rule[1]) : rule[1](conversation);
}

/** Serves the demo model over OpenAI's Chat Completions HTTP API. */
export function startDemoModel(
  options: { port?: number; host?: string } = {},
): Promise<ChatCompletionsServer> {
  return serveChatCompletions(demoModel, options);
}
