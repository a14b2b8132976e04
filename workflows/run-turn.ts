import { condition } from '@temporalio/workflow';
import type { ApprovalKind, ToolCall } from '../protocol/index.js';
import { askHuman } from './ask-human-call.js';
import type { CarriedTurn } from './continuation.js';
import { deniedCall, gatedCall } from './gated-call.js';
import { parseCall, type ParsedCall } from './parse-call.js';
import { reviewPlan } from './plan-review.js';
import type { RunContext } from './run-context.js';
import { runCall } from './run-call.js';

/** The tool messages of a turn in the order of its calls, and the calls a human added to its plan. */
export interface TurnResult {
  messages: { toolCallId: string; content: string }[];
  addedCalls: ToolCall[];
}

/** How a turn whose calls all wait for people hands the run on to a new execution. */
export interface TurnHandOff {
  /** Whether the run should continue as new (the server suggests it, and it may). */
  wanted(): boolean;
  /** Continues as new with the turn as it stands; resolves false when the run goes on here instead. */
  handOff(turn: CarriedTurn): Promise<boolean>;
}

/** A call of the turn still unanswered, and the first approval it waits on, if it waits on one. */
interface Open {
  waitsOn?: { kind: ApprovalKind; toolCallId: string };
}

/**
 * Answers every call of one turn. Calls wait for their humans side by side and each runs as soon as
 * it is allowed; one call's rejection never holds back the others. With plan review, the turn's
 * calls go to a human as one plan instead. A turn carried over from the run's previous execution
 * keeps the answers it had; its other calls wait again on the approvals they had opened.
 *
 * While every unanswered call waits for a first decision (nothing ran for it yet, and no
 * notification is in flight), the turn can be handed on: that is the only point where a run
 * continues as new with approvals pending, since nothing else of the turn is in motion.
 */
export async function runTurn(
  ctx: RunContext,
  calls: ToolCall[],
  carried: CarriedTurn | undefined,
  next: TurnHandOff,
): Promise<TurnResult> {
  const answers = new Map((carried?.answers ?? []).map((a) => [a.toolCallId, a.content]));
  // One after another: a call counts toward the run's totals before the next is judged. A call
  // answered before the run continued as new counts already, or was refused.
  const parsed = calls.map((call) => {
    const item = parseCall(ctx, call);
    if (item.kind === 'tool' && item.policy.verdict !== 'deny' && !answers.has(call.id))
      ctx.totals.count(call.id, item.tool, item.args);
    return item;
  });
  const toolItems = parsed.filter(
    (item): item is Extract<ParsedCall, { kind: 'tool' }> => item.kind === 'tool',
  );
  const planned = ctx.agent.planReview && toolItems.some((item) => item.policy.verdict === 'approve');
  const handled = planned ? parsed.filter((item) => item.kind !== 'tool') : parsed;

  let addedCalls = carried?.addedCalls ?? [];
  const open = new Set<Open>();
  const branches: Promise<void>[] = [];
  const branch = (entry: Open, work: () => Promise<void>) => {
    open.add(entry);
    branches.push(work().then(() => void open.delete(entry)));
  };
  for (const item of handled) {
    if (answers.has(item.call.id)) continue;
    branch({ waitsOn: firstWait(item) }, async () => {
      answers.set(item.call.id, await answer(ctx, item));
    });
  }
  if (planned && !toolItems.every((item) => answers.has(item.call.id))) {
    branch({ waitsOn: { kind: 'plan', toolCallId: toolItems[0]!.call.id } }, async () => {
      const result = await reviewPlan(ctx, toolItems);
      for (const message of result.messages) answers.set(message.toolCallId, message.content);
      addedCalls = result.addedCalls;
    });
  }

  // Wait for every branch before failing, so a cancellation leaves no promise rejected unobserved.
  let done = false;
  const all = Promise.allSettled(branches).then((settled) => {
    done = true;
    return settled;
  });
  const waitingOnly = () =>
    ctx.book.notifying === 0 &&
    [...open].every(({ waitsOn }) => waitsOn && ctx.book.pendingFor(waitsOn.kind, waitsOn.toolCallId));
  for (;;) {
    await condition(() => done || (next.wanted() && waitingOnly()));
    if (done) break;
    const carry = {
      answers: [...answers].map(([toolCallId, content]) => ({ toolCallId, content })),
      addedCalls,
    };
    if (!(await next.handOff(carry))) break;
  }
  const settled = await all;
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  // Tool messages follow the order of the calls in the assistant message.
  const order = [...calls, ...addedCalls].map((call) => call.id);
  return { messages: order.map((id) => ({ toolCallId: id, content: answers.get(id) ?? '' })), addedCalls };
}

/** The approval a call waits on before anything of it runs; none for a call answered or run at once. */
function firstWait(item: ParsedCall): Open['waitsOn'] {
  if (item.kind === 'ask') return { kind: 'question', toolCallId: item.call.id };
  if (item.kind === 'tool' && item.policy.verdict === 'approve')
    return { kind: 'call', toolCallId: item.call.id };
  return undefined;
}

function answer(ctx: RunContext, item: ParsedCall): Promise<string> | string {
  switch (item.kind) {
    case 'invalid':
      return item.message;
    case 'ask':
      return askHuman(ctx, item.call.id, item.args);
    case 'agent':
      return ctx.subAgents.call(item.call.function.name, item.call.id, item.task);
    case 'tool':
      if (item.policy.verdict === 'deny') return deniedCall(ctx, item.tool, item.call.id);
      if (item.policy.verdict === 'auto')
        return runCall(ctx, item.tool, item.call.id, item.args, { approvedBy: [] });
      return gatedCall(ctx, item.tool, item.call.id, item.args, item.policy);
  }
}
