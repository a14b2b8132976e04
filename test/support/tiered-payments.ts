import { z } from 'zod';
import { defineAgent, defineTool } from '../../define/index.js';

/**
 * A payments agent in two tiers: over 1,000 a payment needs an admin; over 100,000, two
 * treasurers (and api-agents' approvers have only bob). `description` is the policy's, so a test
 * chooses whether the amount reads as money (`${{amount}}`) or as a plain number.
 */
export function tieredPayments(description: string) {
  const pay = defineTool({
    name: 'pay',
    description: 'Pay a supplier.',
    parameters: z.object({ supplier: z.string().min(1), amount: z.number().positive() }),
    approval: {
      when: {
        if: { arg: 'amount', op: 'gt', value: 100_000 },
        then: { approve: { name: 'large payment', approvers: ['treasurer'], requiredApprovals: 2 } },
        else: { if: { arg: 'amount', op: 'gt', value: 1000 }, then: 'approve', else: 'auto' },
      },
      decisions: ['approve', 'edit', 'reject'],
      editableFields: ['amount'],
      description,
      approvers: ['admin'],
    },
    async execute(args) {
      return { paid: args.amount };
    },
  });
  return defineAgent({
    name: 'payments',
    description: 'Pays suppliers.',
    instructions: 'You pay suppliers.',
    tools: [pay],
  });
}
