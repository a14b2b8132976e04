import {
  ActivityFailure,
  continueAsNew,
  isCancellation,
  log as workflowLog,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { RunInput, RunOutput, RunState, RunStatus, TranscriptMessage } from '../protocol/index.js';
import { callModel } from './activities.js';
import {
  MODEL_INPUT_INLINE_CHARS,
  type ModelInput,
  type ModelInputRef,
  type ModelTool,
} from './activity-types.js';
import { ApprovalBook } from './approval-book.js';
import { askHumanSpec } from './ask-human.js';
import { SecretVault } from './secret-vault.js';
import { RunTotals } from './run-totals.js';
import { distinctCallIds } from './call-ids.js';
import {
  approvalQuery,
  decisionOutcomeQuery,
  editPreviewQuery,
  decisionSignal,
  decisionUpdate,
  eventsQuery,
  modelInputQuery,
  stateQuery,
  revokeStandingSignal,
} from './definitions.js';
import { decideByUpdate } from './decision-update.js';
import { failureMessage } from './describe.js';
import type { RunContext } from './run-context.js';
import { runTurn, type TurnHandOff } from './run-turn.js';
import { RunControls } from './run-controls.js';
import { RunLog } from './run-log.js';
import { SubAgents } from './sub-agents.js';
import { Visibility } from './visibility.js';
import type { CarriedTurn, Continuation } from './continuation.js';
import {
  isPatched,
  INLINE_MODEL_INPUT_PATCH,
  PAUSE_BEFORE_FINISH_PATCH,
  CONTINUE_MID_TURN_PATCH,
  takeGeneration,
} from './patches.js';

/**
 * The most state a run hands on when it continues as new: the next run's input is one payload, which
 * the server refuses over 2 MB. A run with more goes on in its execution (and warns).
 */
const MAX_CARRIED_BYTES = 1_500_000;

/** The same bound for the run's result, which carries its final state: also one payload. */
const MAX_RESULT_BYTES = 1_500_000;
/** A message of a result over the bound keeps this much of its text. */
const KEPT_CHARS = 512;

type AssistantMessage = Extract<TranscriptMessage, { role: 'assistant' }>;

const payloadBytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

/**
 * The result as one payload the server takes: over the bound, the transcript's long messages keep
 * their beginning and say how much is left out (the model read them whole). Without this a run with
 * a large transcript could never complete: the server refuses the result, again and again.
 */
function fitResult(output: RunOutput): RunOutput {
  if (!output.state || payloadBytes(output) <= MAX_RESULT_BYTES) return output;
  const transcript = output.state.transcript.map((message) =>
    typeof message.content === 'string' && message.content.length > KEPT_CHARS
      ? {
          ...message,
          content: `${message.content.slice(0, KEPT_CHARS)}… [${message.content.length - KEPT_CHARS} more characters, not kept in the run's result]`,
        }
      : message,
  );
  return { ...output, state: { ...output.state, transcript } };
}

/**
 * One agent run: ask the model, put each proposed call through the agent's policy and, where a human
 * must decide, through the approval gate; answer every call with a tool message; repeat until the
 * model gives a final answer, the run is cancelled, or the turn limit is reached. When the server
 * suggests it (a history of thousands of events or megabytes), the run continues as new at the next
 * turn boundary, or while its turn waits only on first decisions (the approvals go along pending),
 * handing its state on (`continued`; callers never pass it).
 *
 * @example
 * ```ts
 * import { executeChild } from '@temporalio/workflow';
 * import type { RunInput } from 'countersign';
 * import { agentWorkflow } from 'countersign/workflow';
 *
 * // In your own workflow: run the agent as a child, on the queue Countersign's worker polls.
 * const output = await executeChild(agentWorkflow, { args: [input], taskQueue: 'countersign' });
 * if (output.status !== 'completed') throw new Error(`the agent run ended ${output.status}`);
 * ```
 */
export async function agentWorkflow(input: RunInput, continued?: Continuation): Promise<RunOutput> {
  const generation = takeGeneration();
  const runId = workflowInfo().workflowId;
  const agent = input.agent;
  const startedAt = continued?.startedAt ?? workflowInfo().startTime.toISOString();
  const transcript: TranscriptMessage[] = continued?.transcript ?? [
    { role: 'system', content: agent.instructions },
    ...(input.context ?? []),
    { role: 'user', content: input.input },
  ];
  const tools = new Map(agent.tools.map((tool) => [tool.name, tool]));
  const visibility = new Visibility(agent.name, generation, continued !== undefined);
  const log = new RunLog(runId, continued?.events, () => visibility.changed());
  let status: RunStatus = continued?.pausedBy ? 'paused' : 'running';
  let turns = continued?.turns ?? 0;
  const turnsBefore = turns;
  let output: string | undefined;
  let addedCalls = continued?.addedCalls ?? 0;

  const live = () => status === 'running' || status === 'waiting' || status === 'paused';
  const settleStatus = () => {
    if (live())
      status = controls.paused
        ? 'paused'
        : book.pending().length > 0 || subAgents.pending().length > 0
          ? 'waiting'
          : 'running';
  };
  const publish = () => {
    const own = subAgents.tag(book.pending());
    visibility.publish(status, own);
    subAgents.report(own);
  };
  const controls = new RunControls(
    log,
    live,
    () => {
      settleStatus();
      publish();
    },
    continued,
  );
  const subAgents = new SubAgents(
    {
      runId,
      agent,
      requester: input.requester,
      chain: input.chain,
      log,
      continued: continued?.continued ?? 0,
      paused: () => controls.resumed(),
    },
    () => {
      settleStatus();
      publish();
    },
  );
  controls.relay = (kind, request) => subAgents.relay(kind, request);
  const totals = new RunTotals(tools, continued?.totals);
  const book = new ApprovalBook(
    { runId, agent: agent.name, requester: input.requester, tools, totals },
    log,
    () => {
      settleStatus();
      publish();
    },
  );
  // Before any handler is set: a signal buffered for this execution is handled as soon as its
  // handler is, and must find the approvals, outcomes and nonces of the run it continues.
  if (continued) {
    book.restore(continued.book);
    settleStatus();
  }
  const vault = new SecretVault();
  if (continued?.secrets) vault.restore(continued.secrets);
  // The run's record of the outputs its worker stored: what makes a marker in its transcript one.
  const storedOutputs: string[] = [...(continued?.storedOutputs ?? [])];
  const ctx: RunContext = {
    runId,
    agent,
    requester: input.requester,
    tools,
    log,
    book,
    vault,
    storedOutputs,
    totals,
    nextAddedCallId: () => `added-${++addedCalls}`,
    paused: () => controls.resumed(),
    subAgents,
  };

  setHandler(decisionSignal, (signal) => book.decide(signal));
  setHandler(revokeStandingSignal, (request) => book.standing.revoke(request));
  setHandler(decisionUpdate, (decision) => decideByUpdate(book, decision));
  controls.listen();
  subAgents.listen();
  const snapshot = (): RunState => ({
    runId,
    agent: agent.name,
    input: input.input,
    ...(input.requester !== undefined ? { requester: input.requester } : {}),
    status,
    turns,
    transcript,
    // A sub-agent's pending approvals show where people look: here, with their chain.
    pending: [...subAgents.tag(book.pending()), ...subAgents.pending()],
    approvals: subAgents.tag(book.all()),
    events: log.events,
    ...(output !== undefined ? { output } : {}),
    startedAt,
    storedOutputs,
    ...book.standing.state(),
  });
  setHandler(stateQuery, snapshot);
  setHandler(approvalQuery, (trackingId) => subAgents.tag([book.get(trackingId)])[0] ?? null);
  setHandler(editPreviewQuery, (trackingId, edit, editor) => book.previewEdit(trackingId, edit, editor));
  setHandler(decisionOutcomeQuery, (requestId) => book.outcome(requestId));
  setHandler(eventsQuery, (afterId) => log.after(afterId));

  const finish = (result: Omit<RunOutput, 'state' | 'decisions'>): RunOutput | Promise<RunOutput> => {
    status = result.status;
    output = result.output;
    log.add({
      type: 'run.finished',
      ...(result.reason ? { reason: result.reason } : {}),
      data: { status: result.status },
    });
    publish();
    const ended = fitResult({ ...result, state: snapshot(), decisions: book.outcomesTaken() });
    // The messages posted for its approvals are told how they ended before the execution closes.
    const updating = book.messages.done({ ending: true });
    return updating ? updating.then(() => ended) : ended;
  };

  if (!continued)
    log.add({ type: 'run.started', data: { agent: agent.name, requester: input.requester ?? null } });
  publish();

  /**
   * Hands the run on to a new run of its chain, whose history starts afresh; false when its state
   * is too large to travel as the next run's input, and the run goes on where it is.
   */
  let tooLargeToCarry = false;
  const continueRun = async (turn?: CarriedTurn): Promise<boolean> => {
    // The updates of posted messages under way would end with this execution.
    const updating = book.messages.done();
    if (updating) await updating;
    const { historyLength, historySize } = workflowInfo();
    const count = (continued?.continued ?? 0) + 1;
    const secrets = vault.carry();
    const counted = totals.carry();
    const carried: Continuation = {
      continued: count,
      startedAt,
      turns,
      transcript,
      events: log.events,
      book: book.carry(),
      addedCalls,
      ...controls.carry(),
      ...(turn ? { turn } : {}),
      ...(secrets.length > 0 ? { secrets } : {}),
      ...(storedOutputs.length > 0 ? { storedOutputs } : {}),
      ...(counted.length > 0 ? { totals: counted } : {}),
    };
    const bytes = new TextEncoder().encode(JSON.stringify(carried)).length;
    if (bytes > MAX_CARRIED_BYTES) {
      if (!tooLargeToCarry) {
        tooLargeToCarry = true;
        workflowLog.warn('the run state is too large to continue as new; it goes on in this execution', {
          bytes,
        });
      }
      return false;
    }
    // The carried log is the run's own: the entry goes with it.
    log.add({
      type: 'run.continued',
      data: {
        continuation: count,
        historyLength,
        historySize,
        turn: turns,
        ...(turn ? { pendingApprovals: book.pending().length } : {}),
      },
    });
    await continueAsNew<typeof agentWorkflow>(input, carried);
    return true;
  };
  const modelTools = [
    ...toModelTools(agent.askHuman ? [...agent.tools, askHumanSpec(agent.tools)] : agent.tools),
    ...subAgents.tools(),
  ];
  setHandler(modelInputQuery, (length) => ({
    messages: transcript.slice(0, length),
    tools: modelTools,
    storedOutputs,
  }));
  /** Until the conversation outgrows MODEL_INPUT_INLINE_CHARS, once: it only grows. */
  let inlineModelInput = true;
  /**
   * What a model call carries: the conversation itself while it is small, which saves the activity
   * a query; past that, a reference it reads the conversation by, so each turn's history holds
   * only its news, not the whole conversation again.
   */
  const modelCallInput = (): ModelInput | ModelInputRef => {
    if (inlineModelInput && isPatched(INLINE_MODEL_INPUT_PATCH)) {
      const carried = { messages: transcript.slice(), tools: modelTools, storedOutputs };
      if (JSON.stringify(carried).length <= MODEL_INPUT_INLINE_CHARS) return carried;
      inlineModelInput = false;
    }
    const { workflowId, runId } = workflowInfo();
    return { transcript: { workflowId, runId, length: transcript.length } };
  };
  const handOff: TurnHandOff = {
    // An execution that began in the middle of a turn goes on at least to the turn's end.
    wanted: () =>
      workflowInfo().continueAsNewSuggested && !tooLargeToCarry && (!continued?.turn || turns > turnsBefore),
    handOff: async (turn) => isPatched(CONTINUE_MID_TURN_PATCH) && (await continueRun(turn)),
  };
  /** Answers the calls of the assistant message, and adds their tool messages to the transcript. */
  const finishTurn = async (assistant: AssistantMessage, carried?: CarriedTurn) => {
    const calls = assistant.tool_calls ?? [];
    const { messages, addedCalls: humanCalls } = await runTurn(ctx, calls, carried, handOff);
    if (humanCalls.length > 0) assistant.tool_calls = [...calls, ...humanCalls];
    for (const message of messages)
      transcript.push({ role: 'tool', tool_call_id: message.toolCallId, content: message.content });
  };
  try {
    // A run continued in the middle of a turn first finishes it: its assistant message is the last.
    if (continued?.turn)
      await finishTurn(transcript[transcript.length - 1] as AssistantMessage, continued.turn);
    while (turns < agent.maxTurns) {
      // At a turn boundary nothing is pending: the whole state fits in the next run's input.
      // An execution that has not yet called the model goes on, whatever its input's size: no chain
      // of executions that each continue at once.
      if (workflowInfo().continueAsNewSuggested && turns > turnsBefore && book.pending().length === 0)
        await continueRun();
      const paused = ctx.paused();
      if (paused) await paused;
      // A correction given on resume is what the model reads next, as the user's word.
      for (const content of controls.takeCorrections()) transcript.push({ role: 'user', content });
      turns++;
      const reply = await callModel({ model: agent.model, ...modelCallInput() });
      log.add({
        type: 'model.responded',
        data: { turn: turns, toolCalls: reply.toolCalls.map((c) => c.function.name) },
      });
      // Every call has an identity of its own in the run: its approvals, key and result are its own.
      const toolCalls = distinctCallIds(reply.toolCalls, transcript);
      const assistant: AssistantMessage = {
        role: 'assistant',
        content: reply.content,
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      };
      transcript.push(assistant);
      if (toolCalls.length === 0) {
        const paused = ctx.paused();
        if (paused && isPatched(PAUSE_BEFORE_FINISH_PATCH)) {
          await paused;
          // Resumed with a correction: the model answers again, having read it.
          if (controls.corrected) continue;
        }
        return finish({ status: 'completed', output: reply.content ?? '' });
      }
      await finishTurn(assistant);
    }
    return finish({ status: 'failed', reason: `the turn limit of ${agent.maxTurns} was reached` });
  } catch (err) {
    if (isCancellation(err))
      return finish({ status: 'cancelled', reason: controls.settleCancellation(book) });
    // A model that keeps failing ends the run; a bug in this code fails the task and is retried.
    if (err instanceof ActivityFailure) return finish({ status: 'failed', reason: failureMessage(err) });
    throw err;
  }
}

function toModelTools(tools: RunInput['agent']['tools']): ModelTool[] {
  return tools.map((tool) => {
    const parameters = { ...tool.parameters };
    // The dialect marker is noise to a model.
    delete parameters.$schema;
    return { type: 'function', function: { name: tool.name, description: tool.description, parameters } };
  });
}
