import path from 'node:path';
import { z } from 'zod';
import { defineAgent, defineTool } from 'countersign';
import { demoApprovers } from './approvers.js';
import { Ledger, SEED_ACCOUNTS, formatAccount } from './ledger.js';
import { lazy } from './sqlite.js';

/** Transfers above this many dollars wait for a human; smaller ones run at once. */
export const TRANSFER_APPROVAL_THRESHOLD = 1000;
/** Above this, the large-transfer tier: two approvers, `cfo` (or the admin), within four hours. */
export const LARGE_TRANSFER_THRESHOLD = 100_000;

const AccountNumber = z
  .string()
  .regex(/^[0-9][0-9 -]{10,30}[0-9]$/, 'an account number: digits, optionally grouped by spaces')
  .describe('Account number, e.g. 4242 4242 4242 4242');

export function bankTransferAgent(dataDir: string) {
  const ledger = lazy(() => new Ledger(path.join(dataDir, 'demo', 'ledger.db')));

  const transfer = defineTool({
    name: 'transfer',
    description:
      'Move money between two accounts of the bank ledger. Returns the executed transfer and the new balances.',
    parameters: z.object({
      from: AccountNumber,
      to: AccountNumber,
      amount: z
        .number()
        .positive()
        .multipleOf(0.01, 'whole cents: at most two decimal places')
        .max(1_000_000)
        .describe('Amount in US dollars'),
    }),
    // Dedupes on the idempotency key: an attempt cut off is simply run again.
    idempotent: true,
    approval: {
      when: {
        if: { arg: 'amount', op: 'gt', value: LARGE_TRANSFER_THRESHOLD },
        then: {
          approve: {
            name: 'large transfer',
            approvers: ['cfo', 'admin'],
            requiredApprovals: 2,
            deadlineSeconds: 4 * 3600,
          },
        },
        else: {
          if: { arg: 'amount', op: 'gt', value: TRANSFER_APPROVAL_THRESHOLD },
          then: 'approve',
          else: 'auto',
        },
      },
      decisions: ['approve', 'edit', 'reject'],
      // A reviewer may lower or raise the amount, never redirect the money.
      editableFields: ['amount'],
      description: 'Transfer ${{amount}} from {{from}} to {{to}}',
      ...demoApprovers('treasury'),
    },
    execute: async ({ from, to, amount }, { idempotencyKey }) =>
      ledger().transfer(idempotencyKey, from, to, amount),
  });

  const accounts = SEED_ACCOUNTS.map((a) => `${formatAccount(a.number)} (${a.owner})`).join(', ');
  return defineAgent({
    name: 'bank-transfer',
    description: `Moves money between ledger accounts; transfers over $${TRANSFER_APPROVAL_THRESHOLD} need a human, over $${LARGE_TRANSFER_THRESHOLD} two.`,
    instructions: [
      'You are a bank operations assistant. Use the transfer tool to move money exactly as asked.',
      `Known accounts: ${accounts}.`,
      'If a human rejects a transfer, tell the user it was not made and do not try it again.',
      'After a transfer, report the amount that was actually moved and the new balances.',
    ].join('\n'),
    tools: [transfer],
  });
}
