/**
 * What code running inside a Temporal workflow may import from Countersign: the agent workflow, its
 * signals and queries, and nothing that needs Node. Start Countersign's agent as a child workflow of
 * your own, or signal and query a run from another workflow.
 *
 * @example
 * ```ts
 * import { executeChild } from '@temporalio/workflow';
 * import { agentWorkflow } from 'countersign/workflow';
 *
 * export async function onboarding(input: RunInput) {
 *   const result = await executeChild(agentWorkflow, { args: [input], workflowId: `run-${input.requester}` });
 * }
 * ```
 *
 * @packageDocumentation
 */
export { agentWorkflow } from './workflows/agent-workflow.js';
export {
  decisionSignal,
  decisionUpdate,
  cancelSignal,
  pauseSignal,
  resumeSignal,
  revokeStandingSignal,
  stateQuery,
  approvalQuery,
  decisionOutcomeQuery,
  eventsQuery,
  editPreviewQuery,
} from './workflows/definitions.js';
