import { z } from 'zod';
import { defineAgent, defineTool, type AgentDefinition } from '../../define/index.js';
import { INSTRUCTIONS, MODEL_NAME, TOOL_DESCRIPTION, TOOL_NAME, toolResult } from '../lib/scenario.js';

export const BENCH_AGENT = 'bench';

/** The scenario's agent: one tool with no policy, so every call waits for a human (safe by default). */
export function createAgents(): AgentDefinition[] {
  return [
    defineAgent({
      name: BENCH_AGENT,
      description: 'The benchmark scenario',
      instructions: INSTRUCTIONS,
      model: MODEL_NAME,
      tools: [
        defineTool({
          name: TOOL_NAME,
          description: TOOL_DESCRIPTION,
          parameters: z.object({ ref: z.string() }),
          execute: async ({ ref }) => toolResult(ref),
        }),
      ],
    }),
  ];
}
