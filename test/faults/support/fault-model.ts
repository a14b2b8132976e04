import {
  serveChatCompletions,
  type ChatCompletionsServer,
} from '../../../model-server/chat-completions-server.js';
import { FAULT_TOOL } from './fault-agents.js';

/** The input of a fault run: the model reads its reference and amount back out of it. */
export const inputFor = (ref: string, amount: number) => `ref=${ref} amount=${amount}`;

export const FINISHED = 'finished: ';

/**
 * Stateless, so it survives every restart around it: with no tool result yet it proposes the
 * gated call named by the input; once the tool has answered (or the human refused) it finishes.
 */
export function serveFaultModel(): Promise<ChatCompletionsServer> {
  return serveChatCompletions((request) => {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { content: `${FINISHED}${last.content}` };
    const input = request.messages.find((m) => m.role === 'user')?.content ?? '';
    const match = /^ref=(.*) amount=(-?\d+)$/s.exec(input);
    if (!match) return { content: `${FINISHED}no change requested` };
    return {
      content: null,
      tool_calls: [
        { function: { name: FAULT_TOOL, arguments: { ref: match[1]!, amount: Number(match[2]) } } },
      ],
    };
  });
}
