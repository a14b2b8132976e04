import type { ChatCompletionHandler } from '../../model-server/chat-completions-server.js';
import { FINAL_PREFIX, TOOL_NAME, refOf } from '../lib/scenario.js';

/**
 * Stateless, so every system and every concurrent run shares it: with no tool result yet the
 * model proposes the gated call; once a tool message is present it gives the final answer.
 */
export const scenarioModel: ChatCompletionHandler = (request) => {
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return { content: `${FINAL_PREFIX}${last.content}` };
  const input = request.messages.find((m) => m.role === 'user')?.content ?? '';
  return { content: null, tool_calls: [{ function: { name: TOOL_NAME, arguments: { ref: refOf(input) } } }] };
};
