import { z } from 'zod';
import { defineAgent, defineTool, OutcomeUnknownError } from '../../define/index.js';
import type { ApproverConfig } from '../../protocol/index.js';

/** A root agent (`dispatch`) and its sub-agent (`payments`), whose tools different roles decide. */

/** The transfers the sub-agent's tool made, by run, so a test sees it ran once. */
export const subTransfers: { runId: string; to: string; amount: number }[] = [];
const attempts = new Map<string, number>();

const transfer = defineTool({
  name: 'transfer',
  description: 'Move money to a payee.',
  parameters: z.object({ to: z.string().min(1), amount: z.number().positive() }),
  // Only treasurers decide it: an operator, who decides the root's own tool, may not. A treasurer
  // may approve a transfer they asked for (in a chat, the reader asked).
  approval: { decisions: ['approve', 'reject'], approvers: ['treasurer'], allowSelfApproval: true },
  async execute(args, context) {
    const attempt = (attempts.get(context.idempotencyKey) ?? 0) + 1;
    attempts.set(context.idempotencyKey, attempt);
    // The bank of `unsure` never confirms a first attempt: nobody knows whether it was sent.
    if (args.to === 'unsure' && attempt === 1) throw new OutcomeUnknownError('the bank did not confirm');
    subTransfers.push({ runId: context.runId, ...args });
    return { sent: args.amount, to: args.to };
  },
});

/** The PINs the statement tool received, by run: a person supplies one for each call. */
export const pinsReceived: { runId: string; pin: string | undefined }[] = [];

const statement = defineTool({
  name: 'statement',
  description: 'Fetch the bank statement; a treasurer supplies the PIN.',
  parameters: z.object({ month: z.string() }),
  approval: { when: 'auto', approvers: ['treasurer'] },
  secrets: [{ name: 'pin', label: 'the bank PIN' }],
  async execute(args, context) {
    pinsReceived.push({ runId: context.runId, pin: context.secrets.pin });
    return { month: args.month, balance: 1200 };
  },
});

const pageOncall = defineTool({
  name: 'page_oncall',
  description: 'Page the engineer on call.',
  parameters: z.object({ message: z.string() }),
  approval: { decisions: ['approve', 'reject'], approvers: ['operator'] },
  async execute(args) {
    return `paged: ${args.message}`;
  },
});

export const payments = defineAgent({
  name: 'payments',
  description: 'Makes payments.',
  instructions: 'You make the payments you are asked for.',
  tools: [transfer, statement],
});

export const dispatch = defineAgent({
  name: 'dispatch',
  description: 'Runs operations, asking payments to pay.',
  instructions: 'You run operations. Ask payments for any payment.',
  tools: [pageOncall],
  agents: [payments],
});

const token = (name: string) => `${name}-token-0123456789abcdef`;

export const subAgentApprovers: ApproverConfig[] = [
  { id: 'alice', name: 'Alice', roles: ['admin'], token: token('alice') },
  { id: 'bob', name: 'Bob', roles: ['treasurer'], token: token('bob') },
  { id: 'olive', name: 'Olive', roles: ['operator'], token: token('olive') },
  { id: 'sam', name: 'Sam', roles: ['requester'], token: token('sam') },
];

export const subAgentTokens = {
  alice: token('alice'),
  bob: token('bob'),
  olive: token('olive'),
  sam: token('sam'),
};
