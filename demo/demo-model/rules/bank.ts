import type { AssistantReply } from 'countersign/dev';
import type { Change, Conversation, Step } from '../conversation.js';
import { answer, callTools, dollars, failureLine, isObject, parseAmount, refusalLine } from '../reply.js';

const ACCOUNT = String.raw`(\d(?:[\d -]*\d)?)`;
/** "$2,500 from 4242 4242 4242 4242 to 5555 5555 5555 4444", several per request if need be. */
const TRANSFER = new RegExp(
  String.raw`\$?\s?([\d,]+(?:\.\d{1,2})?)\s*(?:dollars|usd)?\s+from\s+(?:account\s+)?${ACCOUNT}\s+to\s+(?:account\s+)?${ACCOUNT}`,
  'gi',
);

export function parseTransfers(text: string): { from: string; to: string; amount: number }[] {
  return [...text.matchAll(TRANSFER)].map((m) => ({
    amount: parseAmount(m[1]!),
    from: m[2]!.trim(),
    to: m[3]!.trim(),
  }));
}

function describe(step: Step): string {
  const { call, outcome } = step;
  const proposed = `transfer ${dollars(Number(call.args.amount))} from ${String(call.args.from)} to ${String(call.args.to)}`;
  if (outcome.kind === 'refused') return refusalLine(step, proposed);
  if (outcome.kind === 'failed') return failureLine(step, proposed);
  const result = outcome.data;
  if (!isObject(result) || !isObject(result.transfer)) return `The transfer returned: ${outcome.text}`;
  // What the tool was given, which a reviewer may have edited: never the model's own proposal.
  const t = result.transfer as { from: string; to: string; amount: number };
  const edited = outcome.changes?.length
    ? ` (a reviewer changed ${outcome.changes.map(describeChange).join(', ')})`
    : '';
  if (result.status !== 'executed')
    return `The transfer of ${dollars(t.amount)} from ${t.from} to ${t.to} failed: ${String(result.error)}${edited}.`;
  const balances = isObject(result.balances)
    ? Object.entries(result.balances)
        .map(([account, balance]) => `${account}: ${dollars(Number(balance))}`)
        .join(', ')
    : '';
  return `Transferred ${dollars(t.amount)} from ${t.from} to ${t.to}${edited}. New balances: ${balances}.`;
}

/** "the amount from $2,500.00 to $2,000.00", "the memo to \"rent\"", as the workflow's note told it. */
function describeChange(change: Change): string {
  const value = (v: unknown) => (change.field === 'amount' ? dollars(Number(v)) : JSON.stringify(v));
  if (change.after === undefined) return `the ${change.field}, removing ${value(change.before)}`;
  if (change.before === undefined) return `the ${change.field} to ${value(change.after)}`;
  return `the ${change.field} from ${value(change.before)} to ${value(change.after)}`;
}

export function bankRule(conversation: Conversation): AssistantReply {
  if (conversation.steps.length > 0) return answer(...conversation.latest.map(describe));
  const transfers = parseTransfers(conversation.request);
  if (transfers.length === 0) {
    return answer(
      'I only understand transfer requests such as "Transfer $2,500 from 4242 4242 4242 4242 to 5555 5555 5555 4444".',
    );
  }
  const list = transfers.map((t) => `${dollars(t.amount)} from ${t.from} to ${t.to}`).join('; ');
  return callTools(
    conversation,
    `Transferring ${list}.`,
    transfers.map((args) => ({ name: 'transfer', args })),
  );
}
