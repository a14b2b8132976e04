import { Agent, RunState, tool } from '@openai/agents-core';
import { TemporalOpenAIRunner } from '@temporalio/openai-agents/workflow';
import { condition, continueAsNew, defineSignal, setHandler } from '@temporalio/workflow';
import { INSTRUCTIONS, MODEL_NAME, TOOL_DESCRIPTION, TOOL_NAME, toolResult } from '../../lib/scenario.js';

export const approveSignal = defineSignal('approve');

/** The package's own approval pattern: pause on the interruption, wait for a signal, continue as new. */
export async function approvalWorkflow(input: {
  prompt: string;
  resumeFromRunState?: string;
}): Promise<string> {
  const action = tool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    parameters: {
      type: 'object' as const,
      properties: { ref: { type: 'string' } },
      required: ['ref'] as const,
      additionalProperties: false as const,
    },
    needsApproval: true,
    execute: async (args) => toolResult((args as { ref: string }).ref),
  });
  const agent = new Agent({ name: 'bench', instructions: INSTRUCTIONS, model: MODEL_NAME, tools: [action] });
  const runner = new TemporalOpenAIRunner();

  if (input.resumeFromRunState !== undefined) {
    const state = await RunState.fromString(agent, input.resumeFromRunState);
    for (const interruption of state.getInterruptions()) state.approve(interruption);
    const resumed = await runner.run(agent, state);
    return String(resumed.finalOutput ?? '');
  }

  let approved = false;
  setHandler(approveSignal, () => {
    approved = true;
  });
  const result = await runner.run(agent, input.prompt);
  if (result.interruptions.length === 0) return String(result.finalOutput ?? '');
  await condition(() => approved);
  return continueAsNew<typeof approvalWorkflow>({
    prompt: input.prompt,
    resumeFromRunState: result.state.toString(),
  });
}
