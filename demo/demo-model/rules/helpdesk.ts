import type { AssistantReply } from 'countersign/dev';
import type { Conversation, Step } from '../conversation.js';
import { answer, callTools, failureLine, isObject, refusalLine, table } from '../reply.js';

type Call = { name: string; args: Record<string, unknown> };

/** "Close ticket T-1002 as resolved", "close T-1003 as a duplicate because ...", several per request. */
const CLOSE =
  /close (?:ticket )?(T-\d+)(?: as (?:an? )?(resolved|duplicate|won'?t[ -]fix|wont-fix))?(?:,? because ([^.;]+))?/gi;
const LIST = /\b(?:list|show|which|what)\b.*\btickets?\b|\bqueue\b/i;

function resolutionOf(word: string | undefined): string {
  if (!word) return 'resolved';
  const lower = word.toLowerCase();
  return lower === 'resolved' || lower === 'duplicate' ? lower : 'wont-fix';
}

export function planHelpdesk(text: string): Call[] {
  const closes = [...text.matchAll(CLOSE)].map((m) => ({
    name: 'close_ticket',
    args: {
      id: m[1]!.toUpperCase(),
      resolution: resolutionOf(m[2]),
      ...(m[3] ? { note: m[3].trim() } : {}),
    },
  }));
  if (closes.length > 0) return closes;
  if (!LIST.test(text)) return [];
  const status = /\bopen\b/i.test(text) ? 'open' : /\bclosed\b/i.test(text) ? 'closed' : 'all';
  return [{ name: 'list_tickets', args: { status } }];
}

function report(step: Step): string {
  const { call, outcome } = step;
  const what = call.name === 'close_ticket' ? `close ${String(call.args.id)}` : 'list the tickets';
  if (outcome.kind === 'refused') return refusalLine(step, what);
  if (outcome.kind === 'failed') return failureLine(step, what);
  const r = outcome.data;
  if (call.name === 'list_tickets' && isObject(r) && Array.isArray(r.tickets)) {
    const tickets = r.tickets as Record<string, unknown>[];
    if (tickets.length === 0) return 'There are no such tickets.';
    return [`${tickets.length} ticket(s):`, table(['id', 'title', 'status'], tickets)].join('\n');
  }
  if (call.name === 'close_ticket' && isObject(r) && isObject(r.ticket)) {
    const t = r.ticket;
    // What the server closed it with, which a support lead may have edited.
    const edited =
      t.resolution !== call.args.resolution
        ? ` (the support lead changed the resolution from ${String(call.args.resolution)})`
        : '';
    const note = typeof t.note === 'string' ? `, noting "${t.note}"` : '';
    return `Closed ${String(t.id)} as ${String(t.resolution)}${edited}${note}.`;
  }
  return outcome.text;
}

export function helpdeskRule(conversation: Conversation): AssistantReply {
  if (conversation.steps.length > 0) return answer(...conversation.latest.map(report));
  const calls = planHelpdesk(conversation.request);
  if (calls.length === 0) {
    return answer(
      'I can list the tickets (all, open or closed) and close one, e.g. "Close ticket T-1002 as resolved"; a support lead approves each close.',
    );
  }
  if (calls[0]!.name === 'list_tickets') {
    return callTools(conversation, 'Reading the ticket queue.', calls);
  }
  const ids = calls.map((c) => String(c.args.id)).join(', ');
  return callTools(conversation, `Closing ${ids}.`, calls);
}
