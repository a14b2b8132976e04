import { z } from 'zod';
import type { AgentDefinition, ToolDefinition } from '../define/index.js';
import {
  addedStepErrors,
  lockedFieldErrors,
  omittedLockedFields,
  takesSecret,
} from '../protocol/decision-rules.js';
import type { ApprovalView, Decision, FieldError } from '../protocol/index.js';
import { fieldErrors } from './errors.js';

function toolOf(agents: AgentDefinition[], agent: string, tool: string): ToolDefinition | undefined {
  return agents.find((a) => a.name === agent)?.tools.find((t) => t.name === tool);
}

/**
 * Checks a decision's arguments, plan or result with the tools' own zod schemas before any signal,
 * so a bad edit is a 400 with field errors and never reaches the run. Agents this API does not
 * know are left to the workflow, which checks every decision again.
 */
export function checkDecision(
  agents: AgentDefinition[],
  approval: ApprovalView,
  decision: Decision,
): FieldError[] {
  if (!agents.some((a) => a.name === approval.agent)) return [];
  if (decision.type === 'edit') {
    if (approval.kind === 'plan') {
      if (!decision.plan) return [{ path: '/plan', message: 'an edit of a plan sends the reworked plan' }];
      return decision.plan.flatMap((step, i) => {
        const tool = toolOf(agents, approval.agent, step.tool);
        if (!tool)
          return [
            { path: `/plan/${i}/tool`, message: `${step.tool} is not a tool of agent ${approval.agent}` },
          ];
        const added = addedStepErrors(step, tool, i);
        if (added.length > 0) return added;
        const result = tool.parameters.safeParse(step.args);
        return result.success ? [] : fieldErrors(result.error, ['plan', i, 'args']);
      });
    }
    if (approval.kind !== 'call') return [];
    if (!decision.args) return [{ path: '/args', message: 'an edit sends the new arguments' }];
    const tool = toolOf(agents, approval.agent, approval.tool);
    if (!tool) return [];
    const left = omittedLockedFields(approval.editableFields, approval.args, decision.args);
    if (left.length > 0)
      return [
        {
          path: '/args',
          message: `an edit sends the whole arguments, as proposed with your changes; missing: ${left.join(', ')}`,
        },
      ];
    const errors = lockedFieldErrors(approval.editableFields, approval.args, decision.args, ['args']);
    const result = tool.parameters.safeParse(decision.args);
    if (!result.success) errors.push(...fieldErrors(result.error, ['args']));
    return errors;
  }
  // A secret goes only where one is asked for, and only as a secret: never as a plain result.
  if (decision.type === 'respond' && takesSecret(approval.kind)) {
    return decision.secret === undefined
      ? [{ path: '/secret', message: 'a secret is supplied in secret, never in result' }]
      : [];
  }
  if (decision.type === 'respond' && decision.secret !== undefined)
    return [{ path: '/secret', message: 'only an approval of kind secret takes a secret' }];
  if (decision.type === 'respond' && approval.kind !== 'question') {
    const schema: z.ZodType | undefined = toolOf(agents, approval.agent, approval.tool)?.result;
    const result = schema?.safeParse(decision.result);
    if (result && !result.success) return fieldErrors(result.error, ['result']);
  }
  return [];
}
