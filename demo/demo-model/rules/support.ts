import type { AssistantReply } from 'countersign/dev';
import type { Conversation, Step } from '../conversation.js';
import { answer, callTools, failureLine, isObject, refusalLine } from '../reply.js';

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/;
const ORDER = /(?:order|#)\s*(?:number|no\.?)?\s*#?\s*([A-Z0-9-]{3,})/i;
/** An order number as a person types it in answer to the question: `A-1042`, `77812`, `#77812`. */
const BARE_ORDER = /(?:^|[\s#])([A-Z0-9-]*[0-9][A-Z0-9-]*)/i;
const SIGN_OFF = '\n\nBest regards,\nAcme Support';
const ASK_EMAIL = "What is the customer's email address?";
const ASK_ORDER = 'Which order number is this about?';

type Topic = 'refund' | 'shipping' | 'general';

function topicOf(text: string): Topic {
  if (/refund/i.test(text)) return 'refund';
  if (/ship|deliver|late|delay|tracking/i.test(text)) return 'shipping';
  return 'general';
}

/** The email a request asks for, from what the request and the human's answers say. */
export function draftEmail(
  text: string,
  known: { order?: string } = {},
): {
  to?: string;
  order?: string;
  topic: Topic;
  subject: string;
  body: string;
} {
  const to = EMAIL.exec(text)?.[0];
  const order = ORDER.exec(text.replace(EMAIL, ''))?.[1] ?? known.order;
  const topic = topicOf(text);
  const quoted = /saying[:\s]+"([^"]+)"|"([^"]+)"/.exec(text);
  const extra = quoted ? `\n\n${quoted[1] ?? quoted[2]}` : '';
  if (topic === 'refund') {
    return {
      to,
      order,
      topic,
      subject: `Your refund for order #${order}`,
      body: `Hello,\n\nYour refund for order #${order} has been processed. It will appear on your statement within 5-7 business days.${extra}${SIGN_OFF}`,
    };
  }
  if (topic === 'shipping') {
    return {
      to,
      order,
      topic,
      subject: `An update on your order #${order}`,
      body: `Hello,\n\nWe are sorry that order #${order} is taking longer than expected. It is on its way, and we will send you the tracking details as soon as the carrier confirms them.${extra}${SIGN_OFF}`,
    };
  }
  return {
    to,
    order,
    topic,
    subject: 'Re: your request to Acme',
    body: `Hello,\n\nThank you for contacting Acme. We have looked into your request and will follow up shortly.${extra}${SIGN_OFF}`,
  };
}

function answerText(step: Step): string {
  if (step.outcome.kind !== 'ok') return '';
  const data = step.outcome.data;
  return typeof data === 'string'
    ? data
    : isObject(data)
      ? Object.values(data).map(String).join(' ')
      : String(data);
}

function report(step: Step): string {
  if (step.outcome.kind === 'refused')
    return `${refusalLine(step, `send "${String(step.call.args.subject)}" to ${String(step.call.args.to)}`)}`;
  if (step.outcome.kind === 'failed') return failureLine(step, 'send the email');
  const r = step.outcome.data;
  if (!isObject(r)) return step.outcome.text;
  const edited = r.subject !== step.call.args.subject ? ' (the support lead edited it before approving)' : '';
  return `Sent "${String(r.subject)}" to ${String(r.to)}${edited}. It is in the outbox: ${String(r.file)}.`;
}

export function supportRule(conversation: Conversation): AssistantReply {
  const sent = conversation.steps.find((s) => s.call.name === 'send_email');
  if (sent) return answer(report(sent));
  const questions = conversation.steps.filter((s) => s.call.name === 'ask_human');
  const unanswered = questions.find((q) => q.outcome.kind !== 'ok');
  if (unanswered) return answer('Nobody answered my question, so I did not send anything.');
  const facts = [conversation.request, ...questions.map(answerText)].join('\n');
  // The answer to "which order number" is the order number, however it is written.
  const orderAnswer = questions.find((q) => q.call.args.question === ASK_ORDER);
  const order = orderAnswer ? BARE_ORDER.exec(answerText(orderAnswer))?.[1] : undefined;
  const draft = draftEmail(facts, { order });
  const missing = !draft.to ? ASK_EMAIL : draft.topic !== 'general' && !draft.order ? ASK_ORDER : undefined;
  if (missing && questions.some((q) => q.call.args.question === missing)) {
    const given = answerText(questions.filter((q) => q.call.args.question === missing).at(-1)!);
    return answer(`I asked "${missing}" and could not read one in "${given}", so I did not send anything.`);
  }
  if (missing) {
    if (!conversation.tools.has('ask_human')) return answer(`I need to know: ${missing}`);
    return callTools(conversation, 'I am missing a fact, so I am asking a human.', [
      { name: 'ask_human', args: { question: missing } },
    ]);
  }
  return callTools(
    conversation,
    `Drafted an email to ${draft.to}; a support lead approves it before it goes out.`,
    [{ name: 'send_email', args: { to: draft.to, subject: draft.subject, body: draft.body } }],
  );
}
