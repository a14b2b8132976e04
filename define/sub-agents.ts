import { ASK_HUMAN_TOOL } from '../protocol/names.js';
import { MAX_SUB_AGENT_DEPTH } from '../protocol/sub-agents.js';
import type { AgentDefinition } from './agent.js';

/**
 * The agents given and every sub-agent they reach, each once: what a worker runs the tools of and
 * what the API judges decisions by, so a sub-agent needs no registering of its own. Two different
 * definitions under one name are refused: a run finds a sub-agent by its name.
 *
 * @example
 * ```ts
 * import { withSubAgents } from 'countersign';
 *
 * withSubAgents([ops]).map((agent) => agent.name); // ['ops', 'payments', 'research']
 * ```
 */
export function withSubAgents(agents: readonly AgentDefinition[]): AgentDefinition[] {
  const found = new Map<string, AgentDefinition>();
  const visit = (agent: AgentDefinition, path: readonly AgentDefinition[]) => {
    if (path.includes(agent))
      throw new Error(
        `agent ${agent.name}: its sub-agents call it again (${[...path.slice(path.indexOf(agent)), agent].map((a) => a.name).join(' → ')})`,
      );
    const known = found.get(agent.name);
    if (known && known !== agent) throw new Error(`two different agents are named ${agent.name}`);
    if (known) return;
    found.set(agent.name, agent);
    for (const sub of agent.agents ?? []) visit(sub, [...path, agent]);
  };
  for (const agent of agents) visit(agent, []);
  return [...found.values()];
}

/**
 * Checks an agent's sub-agents where it is defined: no cycle, no name shared by two of them or with
 * one of its tools, and nesting no deeper than {@link MAX_SUB_AGENT_DEPTH}.
 */
export function checkSubAgents(agent: AgentDefinition): void {
  // Refuses a cycle before the depth is measured, which would never end on one.
  for (const each of withSubAgents([agent])) checkNames(each);
  const depth = (of: AgentDefinition): number =>
    Math.max(0, ...(of.agents ?? []).map((sub) => depth(sub) + 1));
  if (depth(agent) > MAX_SUB_AGENT_DEPTH)
    throw new Error(
      `agent ${agent.name}: its sub-agents nest ${depth(agent)} deep; at most ${MAX_SUB_AGENT_DEPTH} are allowed`,
    );
}

/** A sub-agent is offered to the model as a tool: its name must be none of the agent's other tools'. */
function checkNames(agent: AgentDefinition): void {
  const names = new Set([
    ...agent.tools.map((tool) => tool.name),
    ...(agent.askHuman ? [ASK_HUMAN_TOOL] : []),
  ]);
  for (const sub of agent.agents ?? []) {
    if (names.has(sub.name))
      throw new Error(`agent ${agent.name}: ${sub.name} names both a sub-agent and another of its tools`);
    names.add(sub.name);
  }
}
