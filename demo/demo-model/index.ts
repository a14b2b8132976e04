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
import { helpdeskRule } from './rules/helpdesk.js';
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
  ['list_tickets', helpdeskRule],
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
      'I am the offline rule-based demo model and only know the demo agents (loan-approval, bank-transfer, ops, sql-analyst, support-email, helpdesk).',
      'Set OPENAI_API_KEY (and OPENAI_BASE_URL for another endpoint) to use a real model.',
    );
  }
  if (conversation.corrections.length === 0) return rule[1](conversation);
  // A correction given on resume is read before the rule goes on (or does not), unless it is a new request.
  return newRequest(conversation, rule[1]) ?? heedCorrections(conversation, rule[1]);
}

/**
 * A message after the final answer that the rule reads as a request of its own: the next turn of a
 * chat (countersignChat runs it with the earlier turns before it), which the rule answers afresh. Its
 * calls' results then read as the latest steps, as in any run.
 */
function newRequest(
  conversation: Conversation,
  rule: (conversation: Conversation) => AssistantReply,
): AssistantReply | undefined {
  if (conversation.answered === undefined) return undefined;
  const reply = rule({
    ...conversation,
    request: conversation.corrections.join(' '),
    corrections: [],
    steps: [],
    latest: [],
  });
  return reply.tool_calls?.length ? reply : undefined;
}

/** Serves the demo model over OpenAI's Chat Completions HTTP API. */
export function startDemoModel(
  options: { port?: number; host?: string } = {},
): Promise<ChatCompletionsServer> {
  return serveChatCompletions(demoModel, options);
}
