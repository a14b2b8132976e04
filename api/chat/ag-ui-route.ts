/**
 * `POST /ag-ui` of `countersignChat`: the chat as an AG-UI agent. The thread is the chat and each
 * user message a turn, as for the AI SDK (the same runs, `chat-<threadId>-<turn>`); each POST is one
 * AG-UI run of the turn, which ends where the turn waits for the caller (an interrupt) or ends. A
 * resume answers the interrupts with the caller's decisions, through the one decision path.
 */
import type { RequestHandler } from 'express';
import type { AgentDefinition } from '../../define/index.js';
import type { ApproverIdentity } from '../../protocol/index.js';
import { approverOf } from '../auth.js';
import type { ApiOptions } from '../context.js';
import { HttpError, parse } from '../errors.js';
import { readState } from '../runs/run-reads.js';
import { agUiEvents, writeAgUiStream, type AgUiEvent } from './ag-ui-events.js';
import { AgUiRunInput, agUiAnswers, agUiTurn, heldBy, type AgUiAnswer } from './ag-ui-request.js';
import { applyResponses } from './chat-decisions.js';
import type { ApprovalResponse } from './chat-request.js';
import { followRun } from './follow-run.js';
import { openTurn } from './open-turn.js';
import type { ChatPart } from './run-parts.js';

export function agUiRoute(options: ApiOptions, agent: AgentDefinition): RequestHandler {
  return async (req, res) => {
    const caller = approverOf(res);
    await writeAgUiStream(req, res, (signal) => agUiRun(options, agent, caller, req.body, signal));
  };
}

async function* agUiRun(
  options: ApiOptions,
  agent: AgentDefinition,
  caller: ApproverIdentity,
  body: unknown,
  signal: AbortSignal,
): AsyncGenerator<AgUiEvent> {
  const input = parse(AgUiRunInput, body);
  const { turn, text } = agUiTurn(input);
  if (turn === 0)
    throw new HttpError(400, 'an AG-UI run of a chat holds at least one user message', {
      code: 'invalid_request',
      fields: [{ path: '/messages', message: 'no user message' }],
    });
  const runId = await openTurn(options, agent, { chatId: input.threadId, turn, text, caller });
  const { refused, decided } = await answer(options, caller, runId, agUiAnswers(input));
  const first: ChatPart[] = refused.map((one) => ({ type: 'refused', refused: one }));
  yield* agUiEvents(followRun(options, { runId, reader: caller, stepsShown: 0, first, decided }, signal), {
    threadId: input.threadId,
    runId: input.runId,
    countersignRunId: runId,
    held: heldBy(input),
  });
}

/**
 * The resume's answers as the caller's decisions on the turn's run. An interrupt that names no
 * approval of it cannot be correlated, which AG-UI makes an error of the run; a cancelled one
 * decides nothing. Returns the decisions the rules refused.
 */
async function answer(options: ApiOptions, caller: ApproverIdentity, runId: string, answers: AgUiAnswer[]) {
  if (answers.length === 0) return { refused: [], decided: new Set<string>() };
  const { approvals, pending } = await readState(options.client, runId, options.workerWaitMs);
  const responses: ApprovalResponse[] = [];
  for (const { decision, ...ref } of answers) {
    // The run's own approvals, or one its sub-agents wait on (its view shows them as pending).
    const approval = [...approvals, ...pending].find((candidate) => candidate.trackingId === ref.trackingId);
    if (!approval)
      throw new HttpError(
        404,
        `no interrupt ${ref.approvalId} in this thread's current turn (run ${runId})`,
        {
          code: 'unknown_approval',
        },
      );
    if (!decision) continue;
    responses.push({
      ...ref,
      toolCallId: approval.chain?.rootRunId === runId ? approval.chain.rootCallId : approval.toolCallId,
      approved: decision.approved,
      ...(decision.reason ? { reason: decision.reason } : {}),
      ...(decision.editedArgs ? { editedArgs: decision.editedArgs } : {}),
    });
  }
  return applyResponses(options, caller, runId, responses);
}
