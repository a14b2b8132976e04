import { z } from 'zod';
import { defineAgent, defineTool } from '../../define/index.js';
import type { ApproverIdentity } from '../../protocol/index.js';

/** Every transfer that ran, so a test sees it ran once and with which arguments. */
export const transfersMade: { runId: string; to: string; amount: number }[] = [];

/**
 * A teller approves their own transfers up to 10,000 in the chat; a larger one needs a treasurer,
 * and the amount may be edited.
 */
const transfer = defineTool({
  name: 'transfer',
  description: 'Send money to a payee.',
  parameters: z.object({ to: z.string().min(1), amount: z.number().positive() }),
  approval: {
    when: {
      if: { arg: 'amount', op: 'gt', value: 10_000 },
      then: { approve: { name: 'large transfer', approvers: ['treasurer'] } },
      else: 'approve',
    },
    decisions: ['approve', 'edit', 'reject'],
    editableFields: ['amount'],
    description: 'Send {{amount}} to {{to}}',
    approvers: ['teller'],
    allowSelfApproval: true,
  },
  async execute(args, context) {
    transfersMade.push({ runId: context.runId, ...args });
    return { sent: args.amount, to: args.to };
  },
});

export const tellerBank = defineAgent({
  name: 'teller_bank',
  description: 'Sends money for the person chatting.',
  instructions: 'You send money when asked.',
  tools: [transfer],
});

/** Who chats: Sam is a teller; Bob (a treasurer) decides large transfers through REST. */
export const chatPeople: ApproverIdentity[] = [
  { id: 'sam', roles: ['teller'] },
  { id: 'bob', roles: ['treasurer'] },
];
