import { z } from 'zod';
import { defineAgent, defineTool } from '../../define/index.js';
import { tokens } from './api-agents.js';
import { call, calls, say } from './fake-model.js';
import type { Stack } from './stack.js';
import { waitFor } from './wait-for.js';

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

const refillOf = (id: string) => calls(call('refill', { box: 'front-desk', amount: 40 }, id));

/**
 * A petty-cash run, asked by victor: refills r1 and r2, a note n1, a refill r3, then the answer. A
 * standing approval given on r1 covers r2; n1 asks (its policy offers none); r3 asks once it is revoked.
 */
export const startRefills = (stack: Stack, input: string) =>
  stack.startRun(
    'petty-cash',
    input,
    tokens.victor,
    refillOf('r1'),
    refillOf('r2'),
    calls(call('note', { text: 'counted' }, 'n1')),
    refillOf('r3'),
    say('Refilled.'),
  );

/** The run's pending approval, once it is the call `toolCallId`'s. */
export const pendingCall = (stack: Stack, runId: string, toolCallId: string) =>
  waitFor(async () => {
    const [pending] = (await stack.state(runId)).pending;
    return pending?.toolCallId === toolCallId ? pending : undefined;
  }, `${toolCallId} to wait`);
