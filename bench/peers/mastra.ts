import path from 'node:path';
import { z } from 'zod';
import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';
import { createTool } from '@mastra/core/tools';
import { LibSQLStore } from '@mastra/libsql';
import { serveDriver } from '../lib/driver.js';
import { INSTRUCTIONS, MODEL_NAME, TOOL_DESCRIPTION, TOOL_NAME, toolResult } from '../lib/scenario.js';

const dataDir = process.env.BENCH_DATA_DIR!;

const action = createTool({
  id: TOOL_NAME,
  description: TOOL_DESCRIPTION,
  inputSchema: z.object({ ref: z.string() }),
  requireApproval: true,
  execute: async ({ ref }) => toolResult(ref),
});

const mastra = new Mastra({
  agents: {
    bench: new Agent({
      id: 'bench',
      name: 'bench',
      instructions: INSTRUCTIONS,
      // Mastra's own OpenAI-compatible client, pointed at the shared fake model.
      model: { providerId: 'bench', modelId: MODEL_NAME, url: process.env.BENCH_MODEL_URL, apiKey: 'bench' },
      tools: { [TOOL_NAME]: action },
      // As the other peers' openai client does: under load the fake model server can close an idle
      // keep-alive socket just as a call goes out on it, and Mastra retries nothing by default.
      maxRetries: 2,
    }),
  },
  // A paused run is a snapshot in this file, so an approval can resume it in another process.
  storage: new LibSQLStore({ id: 'bench', url: `file:${path.join(dataDir, 'mastra.db')}` }),
});
const agent = mastra.getAgent('bench');

/**
 * The store's writes per run, counted by wrapping the snapshot store's four write methods on this
 * instance; each is one SQL statement, its own transaction.
 */
const writes = new Map<string, number>();
const snapshots = await mastra.getStorage()!.getStore('workflows');
for (const method of [
  'persistWorkflowSnapshot',
  'updateWorkflowResults',
  'updateWorkflowState',
  'deleteWorkflowRunById',
] as const) {
  const write = snapshots![method].bind(snapshots) as (args: { runId: string }) => Promise<unknown>;
  (snapshots as unknown as Record<string, unknown>)[method] = (args: { runId: string }) => {
    writes.set(args.runId, (writes.get(args.runId) ?? 0) + 1);
    return write(args);
  };
}

interface Run {
  input: string;
  runId: string;
  toolCallId: string;
  answer?: string;
}

const suspended = z.object({ toolCallId: z.string() });

serveDriver<Run>('mastra', {
  async startPaused(input) {
    const output = await agent.generate(input);
    if (output.finishReason !== 'suspended' || !output.runId)
      throw new Error(`mastra run ${input} did not pause (${output.finishReason})`);
    return { input, runId: output.runId, toolCallId: suspended.parse(output.suspendPayload).toolCallId };
  },
  async approve(run) {
    writes.set(run.runId, 0);
    // Resumed from the snapshot in the store, as a decision reaching another process would be.
    const output = await agent.approveToolCallGenerate({ runId: run.runId, toolCallId: run.toolCallId });
    run.answer = output.text;
  },
  async finished() {},
  answer: async (run) => run.answer ?? '',
  inputOf: (run) => run.input,
  roundTrips: async (run) => ({ writes: writes.get(run.runId) ?? 0 }),
});
