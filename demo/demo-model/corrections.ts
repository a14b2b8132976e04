import type { AssistantReply } from 'countersign/dev';
import type { Conversation } from './conversation.js';
import { answer, SIGNATURE } from './reply.js';

/** How the demo model reads a correction: go on with the request, stop, or not at all. */
export type Reading = 'go on' | 'stop' | 'not understood';

/** A negation or a halt outweighs any "go ahead" beside it: "do not proceed", "not right". */
const STOP = /\b(?:stop|cancel|halt|abort|hold off|wait|not|never|wrong|incorrect)\b|n't\b/i;
/** The walkthrough's own words, "The payee is right; go ahead.", and their like. */
const GO_ON =
  /\b(?:go ahead|go on|proceed|continue|carry on|right|correct|fine|ok|okay|yes|approved|confirmed|checked|verified|looks good|all good)\b/i;

export function readCorrection(text: string): Reading {
  if (STOP.test(text)) return 'stop';
  if (GO_ON.test(text)) return 'go on';
  return 'not understood';
}

const MAX_QUOTED = 200;

function quote(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return `“${flat.length > MAX_QUOTED ? `${flat.slice(0, MAX_QUOTED)}…` : flat}”`;
}

function withoutSignature(text: string | null | undefined): string {
  const body = text ?? '';
  return body.startsWith(SIGNATURE) ? body.slice(SIGNATURE.length).trimStart() : body;
}

/**
 * The rule's reply, told by what the person said on resume. A rule-based model cannot follow an
 * arbitrary instruction, so it does one of two things and says which: it goes on with the request
 * ("go ahead"), or it stops and proposes nothing more (a "stop", or a note it cannot read, which it
 * will not guess at).
 */
export function heedCorrections(
  conversation: Conversation,
  rule: (conversation: Conversation) => AssistantReply,
): AssistantReply {
  const note = conversation.corrections.join(' ');
  const reading = readCorrection(note);
  // Paused as it answered: that answer is what the request came to; the rules would not repeat it.
  const reply = conversation.answered !== undefined ? { content: conversation.answered } : rule(conversation);
  const calls = reply.tool_calls ?? [];
  const body = withoutSignature(reply.content);
  if (reading === 'go on') {
    const lead = `You said ${quote(note)}, so`;
    if (calls.length > 0)
      return { ...reply, content: `${SIGNATURE} ${lead} I am going on with the request. ${body}` };
    if (conversation.answered !== undefined)
      return answer(`You said ${quote(note)}; I had already finished the request.`, body);
    return answer(`${lead} I went on with the request.`, body);
  }
  const lead =
    reading === 'stop'
      ? `You said ${quote(note)}, so`
      : `I did not understand your note ${quote(note)} (the offline demo model understands notes such as "go ahead" or "stop"), so rather than guess`;
  if (calls.length === 0) return answer(`${lead} I proposed nothing more.`, body);
  const withheld = calls
    .map((c) => {
      const args =
        typeof c.function.arguments === 'string'
          ? c.function.arguments
          : JSON.stringify(c.function.arguments);
      return `${c.function.name} ${args}`;
    })
    .join('; ');
  return answer(
    `${lead} I stopped here and did not propose what I would have done next: ${withheld}.`,
    'Start a new run to ask for something else.',
  );
}
