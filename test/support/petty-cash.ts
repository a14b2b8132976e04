import { z } from 'zod';
import { defineAgent, defineTool } from '../../define/index.js';

/** Refills a treasurer may approve with the rest like them; notes are approved one by one. */
const refill = defineTool({
  name: 'refill',
  description: 'Refill a petty cash box.',
  parameters: z.object({ box: z.string(), amount: z.number().positive() }),
  approval: { approvers: ['treasurer'], standing: { maxSeconds: 3600, maxCalls: 5 } },
  async execute(args) {
    return { refilled: args.amount };
  },
});
const note = defineTool({
  name: 'note',
  description: 'Write a note in the cash book.',
  parameters: z.object({ text: z.string() }),
  approval: { approvers: ['treasurer'] },
  async execute(args) {
    return { noted: args.text };
  },
});

/** An agent whose `refill` offers standing approvals (five calls, an hour) and whose `note` does not. */
export const pettyCash = defineAgent({
  name: 'petty-cash',
  description: 'Refills cash boxes.',
  instructions: 'Refill the boxes asked for.',
  tools: [refill, note],
});
