/**
 * Who may read a run and who may cancel it: one rule for every route, list and event stream of the
 * API (docs/security.md states it for every channel).
 *
 * A caller may read a run (see it in lists, read its state, transcript, approvals and events) and
 * cancel it when they
 * - hold the `admin` role, or
 * - are its requester, or
 * - hold a role that may decide one of its calls: a role its agent's policies name (every tier
 *   and escalation included, so the people an edit or a deadline may hand the run to), or those of
 *   another agent of its family (a root agent and the sub-agents it reaches), or a role one of its
 *   pending approvals asks for.
 *
 * Everything the rule needs is in the run's listing (its agent, requester and pending roles), so a
 * list query selects exactly the runs a caller may read, and pages like any other list.
 */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { AgentDefinition } from '../define/index.js';
import { withSubAgents } from '../define/sub-agents.js';
import { agentRoles } from '../protocol/decision-rules.js';
import { SEARCH_ATTRIBUTES, type Approver } from '../protocol/index.js';
import { searchAttributeKeys } from '../workflows/search-attributes.js';
import type { ApiOptions } from './context.js';
import type { RunAccess } from './runs/run-access.js';
import { HttpError } from './errors.js';
import { describeRun } from './runs/run-reads.js';

export const ADMIN_ROLE = 'admin';

/** A string literal of a Temporal list query. Approver ids and roles never hold `\` or controls. */
function literal(value: string): string {
  if (/[\\\p{Cc}]/u.test(value)) throw new Error(`cannot match ${JSON.stringify(value)} in a list query`);
  return `'${value.replace(/'/g, "''")}'`;
}

export class AccessRule {
  private readonly rolesByAgent: Map<string, Set<string>>;

  constructor(agents: readonly AgentDefinition[]) {
    this.rolesByAgent = new Map(agents.map((agent) => [agent.name, agentRoles(agent)]));
    // An agent and the sub-agents it reaches share their readers: whoever may decide a call anywhere
    // in a chain may read each run of it (the root's view shows its sub-agents' approvals).
    for (const agent of agents) {
      const family = withSubAgents([agent]);
      if (family.length === 1) continue;
      const roles = new Set(family.flatMap((member) => [...agentRoles(member)]));
      for (const member of family) {
        const own = this.rolesByAgent.get(member.name) ?? new Set<string>();
        this.rolesByAgent.set(member.name, new Set([...own, ...roles]));
      }
    }
  }

  isAdmin(caller: Approver): boolean {
    return caller.roles.includes(ADMIN_ROLE);
  }

  /** The agents whose every run the caller may read, by the roles they hold. */
  agentsFor(caller: Approver): string[] {
    return [...this.rolesByAgent]
      .filter(([, roles]) => caller.roles.some((role) => roles.has(role)))
      .map(([name]) => name);
  }

  /** Whether the caller may read the run (and cancel it, while it runs). */
  mayRead(caller: Approver, run: RunAccess): boolean {
    if (this.isAdmin(caller)) return true;
    if (run.requester !== undefined && run.requester === caller.id) return true;
    const roles = run.agent !== undefined ? this.rolesByAgent.get(run.agent) : undefined;
    return caller.roles.some((role) => roles?.has(role) || run.pendingRoles.includes(role));
  }

  /**
   * The list-query clause selecting exactly the runs `mayRead` lets the caller read; undefined
   * for an admin, who reads every run.
   */
  listClause(caller: Approver): string | undefined {
    if (this.isAdmin(caller)) return undefined;
    const clauses = [`${SEARCH_ATTRIBUTES.requester.name} = ${literal(caller.id)}`];
    const agents = this.agentsFor(caller);
    if (agents.length > 0)
      clauses.push(`${SEARCH_ATTRIBUTES.agent.name} IN (${agents.map(literal).join(', ')})`);
    // `IN ()` is no query: a caller holding no role reads only what they asked for.
    if (caller.roles.length > 0)
      clauses.push(`${SEARCH_ATTRIBUTES.pendingRoles.name} IN (${caller.roles.map(literal).join(', ')})`);
    return `(${clauses.join(' OR ')})`;
  }

  /**
   * The run's description when the caller may read it. A run they may not read is a 404, as one
   * that does not exist: its existence is not theirs to learn either.
   */
  async readable(client: Client, caller: Approver, runId: string): Promise<WorkflowExecutionDescription> {
    const description = await describeRun(client, runId);
    if (!this.mayRead(caller, accessOfDescription(description)))
      throw new HttpError(404, `no run ${runId}`, { code: 'not_found' });
    return description;
  }
}

/** What the rule needs of a run, from its description (a Temporal read, no worker). */
export function accessOfDescription(description: WorkflowExecutionDescription): RunAccess {
  const attributes = description.typedSearchAttributes;
  return {
    agent: attributes.get(searchAttributeKeys.agent),
    requester: attributes.get(searchAttributeKeys.requester),
    pendingRoles: attributes.get(searchAttributeKeys.pendingRoles) ?? [],
  };
}

const rules = new WeakMap<ApiOptions, AccessRule>();

/** The rule for this API's agents, derived once. */
export function accessRule(options: ApiOptions): AccessRule {
  let rule = rules.get(options);
  if (!rule) rules.set(options, (rule = new AccessRule(options.agents)));
  return rule;
}
