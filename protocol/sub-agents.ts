import { z } from 'zod';
import { Name } from './name.js';
import { MAX_SUB_AGENT_DEPTH } from './sub-agent-depth.js';

export { MAX_SUB_AGENT_DEPTH };

/**
 * Where a sub-agent's run sits: the root run people look at, the run that called it, and the agents
 * from the root down to its own (`['ops', 'payments']`). A sub-agent's run carries it in its input,
 * and each of its approvals shows it, so the inbox can say "ops → payments → transfer".
 *
 * @example
 * ```ts
 * import type { ApprovalView } from 'countersign';
 *
 * const where = (approval: ApprovalView) =>
 *   [...(approval.chain?.agents ?? [approval.agent]), approval.tool].join(' → ');
 * ```
 */
export const SubAgentChain = z.strictObject({
  rootRunId: z.string(),
  /** The call of the root run it answers for: where a chat of the root run shows its approvals. */
  rootCallId: z.string(),
  parentRunId: z.string(),
  /** From the root's agent down to this run's: at least two. */
  agents: z
    .array(Name)
    .min(2)
    .max(MAX_SUB_AGENT_DEPTH + 1),
});
export type SubAgentChain = z.infer<typeof SubAgentChain>;

/**
 * Why a sub-agent call did not give the sub-agent's answer, in its tool message: the call would nest
 * deeper than {@link MAX_SUB_AGENT_DEPTH}, would call an agent already in the chain, or the
 * sub-agent's run could not start or did not complete.
 *
 * @example
 * ```ts
 * import { SubAgentFailureCode } from 'countersign';
 *
 * SubAgentFailureCode.options; // ['sub_agent_too_deep', 'sub_agent_cycle', 'sub_agent_failed']
 * ```
 */
export const SubAgentFailureCode = z.enum(['sub_agent_too_deep', 'sub_agent_cycle', 'sub_agent_failed']);
export type SubAgentFailureCode = z.infer<typeof SubAgentFailureCode>;
