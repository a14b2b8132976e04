import type { AssistantReply, ReplyToolCall } from 'countersign/dev';
import type { Conversation, Refusal, Step } from './conversation.js';

export const SIGNATURE = '[offline demo model]';

/** A final answer, marked so nobody mistakes the rule-based demo for a real model. */
export function answer(...lines: string[]): AssistantReply {
  return { content: `${SIGNATURE} ${lines.filter((l) => l !== '').join('\n')}` };
}

/** Tool calls with ids unique within the run and identical for identical conversations. */
export function callTools(
  conversation: Conversation,
  note: string,
  calls: { name: string; args: Record<string, unknown> }[],
): AssistantReply {
  const tool_calls: ReplyToolCall[] = calls.map((c, i) => ({
    id: `call_demo_${conversation.turn + 1}_${i + 1}`,
    type: 'function',
    function: { name: c.name, arguments: c.args },
  }));
  return { content: `${SIGNATURE} ${note}`, tool_calls };
}

const WHY: Record<Refusal, string> = {
  rejected: 'a human reviewer refused it',
  removed: 'a human reviewer removed it from the plan',
  expired: 'nobody approved it before its deadline',
  denied: 'policy does not allow it',
  withheld: 'a human reviewer withheld its result',
  unanswered: 'nobody answered in time',
};

export function refusalLine(step: Step, what: string): string {
  if (step.outcome.kind !== 'refused') return `I could not ${what}.`;
  const message = step.outcome.message ? ` (“${step.outcome.message}”)` : '';
  return `I did not ${what}: ${WHY[step.outcome.reason]}${message}. I will not retry it.`;
}

export function failureLine(step: Step, what: string): string {
  return `I could not ${what}: ${step.outcome.text}`;
}

export function dollars(amount: number): string {
  return amount.toLocaleString('en-US', { style: 'currency', currency: 'USD' });
}

/** Numbers as people write them: "$2,500", "2500.50", "85k". */
export function parseAmount(text: string): number {
  const match = /([\d,]+(?:\.\d+)?)\s*(k)?/i.exec(text);
  if (!match) return NaN;
  const value = Number(match[1]!.replace(/,/g, ''));
  return match[2] ? value * 1000 : value;
}

/** Rows as a Markdown table, the first ten of them. */
export function table(columns: string[], rows: Record<string, unknown>[]): string {
  const shown = rows.slice(0, 10);
  const line = (cells: unknown[]) => `| ${cells.map((c) => String(c)).join(' | ')} |`;
  return [
    line(columns),
    line(columns.map(() => '---')),
    ...shown.map((r) => line(columns.map((c) => r[c]))),
  ].join('\n');
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
