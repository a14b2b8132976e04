import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import { getRunState, sendDecision } from '../../client/index.js';
import { defineAgent, defineTool } from '../../define/index.js';
import type { ApprovalView, Approver } from '../../protocol/index.js';
import { waitFor } from '../workflow/fixtures/harness.js';

export { waitFor };

/** What a user's own agent looks like: one tool over $1,000 waits for finance, with a deadline. */
export function refundsAgent(refunded: { orderId: string; amount: number }[] = []) {
  const refund = defineTool({
    name: 'refund_order',
    description: 'Refund an order.',
    parameters: z.object({ orderId: z.string(), amount: z.number().positive() }),
    approval: {
      when: { if: { arg: 'amount', op: 'gt', value: 1000 }, then: 'approve', else: 'auto' },
      approvers: ['finance'],
      deadlineSeconds: 3 * 86_400,
      onTimeout: { action: 'reject' },
    },
    async execute(args) {
      refunded.push(args);
      return { refunded: args.amount };
    },
  });
  return defineAgent({
    // Unique, so list queries see this test's runs only.
    name: `refunds-${randomUUID().slice(0, 8)}`,
    description: 'Refunds orders.',
    instructions: 'Refund what you are asked to.',
    tools: [refund],
  });
}

export const finance: Approver = { id: 'fin', roles: ['finance'] };

/** The run's one pending approval, once it has it. */
export function pendingApproval(client: Client, runId: string): Promise<ApprovalView> {
  return waitFor(async () => (await getRunState(client, runId)).pending[0], `an approval in ${runId}`);
}

/** Approves the run's pending approval as finance. */
export async function approve(client: Client, runId: string): Promise<void> {
  const approval = await pendingApproval(client, runId);
  const outcome = await sendDecision(
    client,
    {
      trackingId: approval.trackingId,
      decision: { type: 'approve' },
      approver: finance,
      channel: 'api',
      requestId: randomUUID(),
      revision: approval.revision,
    },
    { waitMs: 30_000 },
  );
  if (!outcome?.accepted) throw new Error(`the approval was not taken: ${JSON.stringify(outcome)}`);
}
