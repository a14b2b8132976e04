import { AgentSpec } from '../protocol/index.js';
import { toToolSpec, type ToolDefinition } from './tool.js';

export interface AgentDefinition {
  name: string;
  description: string;
  instructions: string;
  /** Model name; the worker's configured default is used when absent. */
  model?: string;
  maxTurns?: number;
  planReview?: boolean;
  askHuman?: boolean;
  // Tools are heterogeneous in their argument types; each was checked by defineTool.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  tools: ToolDefinition<any>[];
}

export function defineAgent(definition: AgentDefinition): AgentDefinition {
  const names = new Set<string>();
  for (const tool of definition.tools) {
    if (names.has(tool.name)) throw new Error(`agent ${definition.name}: tool ${tool.name} is defined twice`);
    names.add(tool.name);
  }
  AgentSpec.parse(toAgentSpec(definition, 'validation-only'));
  return definition;
}

/** The copy of an agent a run starts with. */
export function toAgentSpec(agent: AgentDefinition, defaultModel: string): AgentSpec {
  return AgentSpec.parse({
    name: agent.name,
    description: agent.description,
    instructions: agent.instructions,
    model: agent.model ?? defaultModel,
    maxTurns: agent.maxTurns,
    planReview: agent.planReview,
    askHuman: agent.askHuman,
    tools: agent.tools.map(toToolSpec),
  });
}
