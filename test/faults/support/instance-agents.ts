import path from 'node:path';
import { z } from 'zod';
import { defineAgent, defineTool, type AgentDefinition, type ToolContext } from '../../../define/index.js';
import type { JsonObject } from '../../../protocol/index.js';
import { appendExecution } from './executions.js';

export const INSTANCE_AGENT = 'shared';

/**
 * Several instances' data dirs are siblings: what their tools did is logged beside them, in one
 * file the test reads whichever worker ran the call.
 */
export const sharedLog = (dataDir: string) => path.join(path.dirname(dataDir), 'tool-calls.log');

/** The text `dump_log` returns for `lines`: the same on every worker, so a test can compare it. */
export const dumpText = (lines: number) =>
  Array.from({ length: lines }, (_, i) => `line ${i}: checkout ok`).join('\n');

function log(dataDir: string, args: JsonObject, context: ToolContext, extra: JsonObject = {}): void {
  appendExecution(sharedLog(dataDir), {
    kind: 'applied',
    key: context.idempotencyKey,
    runId: context.runId,
    toolCallId: context.toolCallId,
    trackingId: context.trackingId,
    approvedBy: context.approvedBy,
    args: { ...args, ...extra },
    pid: process.pid,
  });
}

/**
 * One agent with a tool of each kind the instances must agree on: a gated payment (decisions,
 * email links), a report whose password a person supplies (secret keys), and a log dump too big
 * for the run's history (the content store).
 */
export function createAgents(dataDir: string): AgentDefinition[] {
  return [
    defineAgent({
      name: INSTANCE_AGENT,
      description: 'Touches everything several instances must share',
      instructions: 'Do what you are asked with your tools, then report the result.',
      tools: [
        defineTool({
          name: 'pay',
          description: 'Make a payment (needs approval).',
          parameters: z.object({ ref: z.string().max(100) }),
          idempotent: true,
          approval: { approvers: ['reviewer'] },
          execute: async (args, context) => {
            log(dataDir, args, context);
            return { paid: args.ref };
          },
        }),
        defineTool({
          name: 'read_report',
          description: 'Read a report from a database whose password a person supplies.',
          parameters: z.object({ ref: z.string().max(100) }),
          approval: { when: 'auto', approvers: ['reviewer'] },
          secrets: [{ name: 'password', label: 'the database password' }],
          maxAttempts: 1,
          execute: async (args, context) => {
            log(dataDir, args, context, { password: context.secrets.password ?? null });
            return { report: args.ref };
          },
        }),
        defineTool({
          name: 'dump_log',
          description: 'Read a service log.',
          parameters: z.object({ lines: z.number().int().min(1).max(100_000) }),
          approval: { when: 'auto' },
          execute: async (args, context) => {
            log(dataDir, args, context);
            return dumpText(args.lines);
          },
        }),
      ],
    }),
  ];
}
