// A team's own agent, defined against the installed package.
import { z } from 'zod';
import { defineAgent, defineTool } from 'countersign';

/** What the tool was really called with: the test checks it ran once, with the approved arguments. */
export const executed: { order: string; amount: number }[] = [];

const refund = defineTool({
  name: 'refund',
  description: 'Refund an order.',
  parameters: z.object({ order: z.string(), amount: z.number().positive() }),
  approval: {
    when: { if: { arg: 'amount', op: 'gt', value: 10 }, then: 'approve', else: 'auto' },
    approvers: ['support-lead'],
    editableFields: ['amount'],
    description: 'Refund ${{amount}} on order {{order}}',
  },
  execute: async (args) => {
    executed.push(args);
    return { refunded: args.amount, order: args.order };
  },
});

export const refunds = defineAgent({
  name: 'refunds',
  description: 'Refunds orders.',
  instructions: 'Refund what the customer asks for.',
  tools: [refund],
});
