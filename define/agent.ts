import { AgentSpec } from '../protocol/index.js';
import { checkSubAgents, withSubAgents } from './sub-agents.js';
import { toToolSpec, type ToolDefinition } from './tool.js';

/**
 * An agent as `defineAgent` takes it: what `createWorker`, `startRun` and the API are given.
 *
 * @example
 * ```ts
 * import { defineAgent, type AgentDefinition } from 'countersign';
 *
 * const definition: AgentDefinition = {
 *   name: 'support',
 *   description: 'Handles refunds.',
 *   instructions: 'You help customers with refunds.',
 *   model: 'gpt-4o',
 *   maxTurns: 10,
 *   tools: [lookup, refund],
 * };
 * export const support = defineAgent(definition);
 * ```
 */
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
  /**
   * Agents it may call as tools: each is offered to the model under its name and description, with
   * a `task`; it runs as a child workflow with its own policies, and its answer is the tool's output.
   */
  agents?: AgentDefinition[];
}

/**
 * Defines an agent: its instructions, its tools and their policies. Checked at once (a tool named
 * twice, an invalid policy), so a bad definition fails where it is written, not in a run.
 *
 * @example
 * ```ts
 * export const support = defineAgent({
 *   name: 'support',
 *   description: 'Handles refunds.',
 *   instructions: 'You help customers with refunds. Never retry a call a human refused.',
 *   tools: [refund],
 *   askHuman: true,
 * });
 * ```
 */
export function defineAgent(definition: AgentDefinition): AgentDefinition {
  const names = new Set<string>();
  for (const tool of definition.tools) {
    if (names.has(tool.name)) throw new Error(`agent ${definition.name}: tool ${tool.name} is defined twice`);
    names.add(tool.name);
  }
  checkSubAgents(definition);
  AgentSpec.parse(toAgentSpec(definition, 'validation-only'));
  return definition;
}

/**
 * The copy of an agent a run starts with: what `startRun` puts in the run's input, and what you
 * pass to `agentWorkflow` when you start it as a child workflow of your own.
 *
 * @example
 * ```ts
 * const input: RunInput = { agent: toAgentSpec(support, 'gpt-4o-mini'), input: 'Refund order A-1042', requester: 'sam' };
 * ```
 */
export function toAgentSpec(agent: AgentDefinition, defaultModel: string): AgentSpec {
  const subAgents = withSubAgents([agent]).slice(1);
  return AgentSpec.parse({
    ...specFields(agent, defaultModel),
    // A run takes its sub-agents' specs with its own, so their policies never change under it either.
    ...(subAgents.length > 0 ? { subAgents: subAgents.map((sub) => specFields(sub, defaultModel)) } : {}),
  });
}

function specFields(agent: AgentDefinition, defaultModel: string) {
  return {
    name: agent.name,
    description: agent.description,
    instructions: agent.instructions,
    model: agent.model ?? defaultModel,
    maxTurns: agent.maxTurns,
    planReview: agent.planReview,
    askHuman: agent.askHuman,
    tools: agent.tools.map(toToolSpec),
    ...(agent.agents?.length ? { agents: agent.agents.map((sub) => sub.name) } : {}),
  };
}
