import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { defineAgent, defineTool, type AgentDefinition, type ToolContext } from '../../../define/index.js';
import type { JsonObject } from '../../../protocol/index.js';
import { appendExecution, readExecutions, type Execution } from './executions.js';

export const FAULT_AGENT = 'faults';
export const FAULT_TOOL = 'apply_change';

export const executionsFile = (dataDir: string) => path.join(dataDir, 'executions.log');

export const ONCE_AGENT = 'once';
export const ONCE_TOOL = 'send_once';
/** Where `send_once` logs each attempt, apart from the fault tool's log. */
export const sentFile = (dataDir: string) => path.join(dataDir, 'sent.log');
/** While this file exists, `send_once` holds each attempt after its effect. */
export const holdFile = (dataDir: string) => path.join(dataDir, 'hold-sends');
export const appliedText = (ref: string, amount: number) => `applied ${ref} ${amount}`;

/** What a tool's log keeps of one call, beside whether it acted. */
function callOf(args: JsonObject, context: ToolContext): Omit<Execution, 'kind'> {
  return {
    key: context.idempotencyKey,
    runId: context.runId,
    toolCallId: context.toolCallId,
    trackingId: context.trackingId,
    approvedBy: context.approvedBy,
    args,
    pid: process.pid,
  };
}

/**
 * The agents the fault suite drives: one gated tool with a side effect, idempotent on the key
 * Countersign hands it, that logs every call so the suite can tell whether anything ran twice or
 * without approval; and one that does not dedupe, for unknown outcomes.
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
          // Dedupes on the idempotency key: the fault suites kill workers mid-call.
          idempotent: true,
          approval: { decisions: ['approve', 'edit', 'reject'], approvers: ['reviewer'] },
          execute: async (args, context) => {
            const seen = readExecutions(log).some(
              (e) => e.kind === 'applied' && e.key === context.idempotencyKey,
            );
            appendExecution(log, { kind: seen ? 'deduped' : 'applied', ...callOf(args, context) });
            return appliedText(args.ref, args.amount);
          },
        }),
      ],
    }),
    defineAgent({
      name: ONCE_AGENT,
      description: 'Sends what it is asked to, once',
      instructions: 'Send what you are asked to with send_once, then report the result.',
      tools: [
        defineTool({
          name: ONCE_TOOL,
          description: 'Send a message (not safe to repeat: it does not dedupe).',
          parameters: z.object({ ref: z.string().max(200) }),
          result: z.object({ sent: z.string() }),
          approval: { approvers: ['reviewer'] },
          execute: async (args, context) => {
            appendExecution(sentFile(dataDir), { kind: 'applied', ...callOf(args, context) });
            context.progress(`sent ${args.ref}`);
            // Held after its effect while the hold file exists: a test kills the worker here.
            while (existsSync(holdFile(dataDir))) await sleep(50, undefined, { signal: context.signal });
            return { sent: args.ref };
          },
        }),
      ],
    }),
  ];
}
