import path from 'node:path';
import { z } from 'zod';
import { defineAgent, defineTool, type AgentDefinition } from '../../../define/index.js';
import { appendExecution, readExecutions } from './executions.js';

export const FAULT_AGENT = 'faults';
export const FAULT_TOOL = 'apply_change';

export const executionsFile = (dataDir: string) => path.join(dataDir, 'executions.log');
export const appliedText = (ref: string, amount: number) => `applied ${ref} ${amount}`;

/**
 * The agent the fault suite drives: one gated tool with a side effect, idempotent on the key
 * Countersign hands it, that logs every call so the suite can tell whether anything ran twice or
 * without approval.
 */
export function createAgents(dataDir: string): AgentDefinition[] {
  const log = executionsFile(dataDir);
  return [
    defineAgent({
      name: FAULT_AGENT,
      description: 'Fault-injection target',
      instructions: 'Apply the change you are asked for with apply_change, then report the result.',
      tools: [
        defineTool({
          name: FAULT_TOOL,
          description: 'Apply a change to a reference (needs approval).',
          parameters: z.object({ ref: z.string().max(100_000), amount: z.number().int() }),
          approval: { decisions: ['approve', 'edit', 'reject'], approvers: ['reviewer'] },
          execute: async (args, context) => {
            const seen = readExecutions(log).some(
              (e) => e.kind === 'applied' && e.key === context.idempotencyKey,
            );
            appendExecution(log, {
              kind: seen ? 'deduped' : 'applied',
              key: context.idempotencyKey,
              runId: context.runId,
              toolCallId: context.toolCallId,
              trackingId: context.trackingId,
              approvedBy: context.approvedBy,
              args,
              pid: process.pid,
            });
            return appliedText(args.ref, args.amount);
          },
        }),
      ],
    }),
  ];
}
