/**
 * The built-in tool through which the model asks a person a question.
 *
 * @example
 * ```ts
 * import { ASK_HUMAN_TOOL } from 'countersign';
 * import { getRunState } from 'countersign/client';
 *
 * const { approvals } = await getRunState(client, runId);
 * const questions = approvals.filter((approval) => approval.tool === ASK_HUMAN_TOOL);
 * ```
 */
export const ASK_HUMAN_TOOL = 'ask_human';
