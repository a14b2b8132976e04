import type { AssistantReply } from 'countersign/dev';
import type { Conversation, Step } from '../conversation.js';
import { answer, callTools, dollars, failureLine, isObject, parseAmount, refusalLine } from '../reply.js';

type Fields = {
  applicant?: string;
  creditScore?: number;
  annualIncome?: number;
  monthlyDebt?: number;
  employmentYears?: number;
  amount?: number;
  termMonths?: number;
};

const FIELD_NAMES: Record<keyof Fields, string> = {
  applicant: 'the applicant name',
  creditScore: 'credit score',
  annualIncome: 'annual income',
  monthlyDebt: 'monthly debt payments (or a debt-to-income ratio)',
  employmentYears: 'years of employment',
  amount: 'the requested amount',
  termMonths: 'term',
};

function grab(text: string, pattern: RegExp): string | undefined {
  return pattern.exec(text)?.[1];
}

/** Reads the applicant figures out of a plain-English application. */
export function parseApplication(text: string): Fields {
  const num = (pattern: RegExp) => {
    const raw = grab(text, pattern);
    return raw === undefined ? undefined : parseAmount(raw);
  };
  const f: Fields = {
    applicant: grab(text, /(?:applicant|for|of|from)[:\s]+([A-Z][a-z'-]+(?:\s+[A-Z][a-z'-]+)+)/),
    creditScore: num(/credit score(?: of| is|:)?\s*(\d{3})/i),
    annualIncome: num(/income(?: of| is|:)?\s*\$?\s*([\d,.]+\s*k?)/i),
    monthlyDebt: num(
      /(?:monthly debts?|debt payments?|monthly obligations?)(?: of| are| is|:)?\s*\$?\s*([\d,.]+\s*k?)/i,
    ),
    employmentYears:
      num(
        /([\d.]+)\s*years?\s*(?:of employment|employed|at|with|in (?:his|her|their) (?:current )?job|of work)/i,
      ) ?? num(/employed (?:for )?([\d.]+)\s*years?/i),
    amount:
      num(/(?:requesting|requests|borrow|loan (?:of|for)|amount(?: of|:)?)\s*\$?\s*([\d,.]+\s*k?)/i) ??
      num(/\$\s*([\d,.]+\s*k?)\s*loan/i),
  };
  const dti = grab(text, /(?:debt[- ]to[- ]income|dti)(?: ratio)?(?: of| is|:)?\s*([\d.]+)\s*%/i);
  if (f.monthlyDebt === undefined && dti !== undefined && f.annualIncome !== undefined) {
    f.monthlyDebt = Math.round(((Number(dti) / 100) * f.annualIncome) / 12);
  }
  const months = grab(text, /(\d+)[- ]months?/i);
  const years = grab(text, /(\d+)[- ]years?(?: term| loan)/i);
  f.termMonths = months ? Number(months) : years ? Number(years) * 12 : 60;
  return f;
}

function missing(f: Fields): string[] {
  return (Object.keys(FIELD_NAMES) as (keyof Fields)[])
    .filter((k) => f[k] === undefined || Number.isNaN(f[k]))
    .map((k) => FIELD_NAMES[k]);
}

function propose(
  conversation: Conversation,
  assessment: Record<string, unknown>,
  fields: Fields,
): AssistantReply {
  const score = Number(assessment.score);
  if (assessment.recommendation === 'approve_loan') {
    return callTools(
      conversation,
      `Risk score ${score}/100 (${String(assessment.rating)} risk). I propose approving the loan; a loan officer decides.`,
      [
        {
          name: 'approve_loan',
          args: {
            applicant: fields.applicant,
            amount: fields.amount,
            termMonths: fields.termMonths,
            interestRate: Number(assessment.interestRate),
            riskScore: score,
          },
        },
      ],
    );
  }
  const reasons = Array.isArray(assessment.reasons)
    ? assessment.reasons.map(String)
    : [`risk score ${score}`];
  return callTools(
    conversation,
    `Risk score ${score}/100 (${String(assessment.rating)} risk). I propose declining the loan; a loan officer decides.`,
    [{ name: 'decline_loan', args: { applicant: fields.applicant, amount: fields.amount, reasons } }],
  );
}

function report(step: Step): string {
  const what = step.call.name === 'approve_loan' ? 'approve the loan' : 'decline the loan';
  if (step.outcome.kind === 'refused') return `${refusalLine(step, what)} No decision was recorded.`;
  if (step.outcome.kind === 'failed') return failureLine(step, what);
  const r = step.outcome.data;
  if (!isObject(r)) return `Recorded: ${step.outcome.text}`;
  if (r.decision === 'approved') {
    const edited =
      Number(r.amount) !== Number(step.call.args.amount) ||
      Number(r.interestRate) !== Number(step.call.args.interestRate);
    return [
      `Loan ${String(r.loanId)} approved for ${String(r.applicant)}: ${dollars(Number(r.amount))} over ${String(r.termMonths)} months at ${String(r.interestRate)}%`,
      `(monthly payment ${dollars(Number(r.monthlyPayment))}).`,
      edited ? 'The loan officer adjusted the terms I proposed.' : '',
    ].join(' ');
  }
  return `The application of ${String(r.applicant)} for ${dollars(Number(r.amount))} was declined: ${(r.reasons as string[]).join('; ')}.`;
}

export function loanRule(conversation: Conversation): AssistantReply {
  const fields = parseApplication(conversation.request);
  const assessed = conversation.steps.find((s) => s.call.name === 'assess_risk');
  const decided = conversation.steps.find(
    (s) => s.call.name === 'approve_loan' || s.call.name === 'decline_loan',
  );
  if (decided) return answer(report(decided));
  if (assessed) {
    if (assessed.outcome.kind !== 'ok' || !isObject(assessed.outcome.data)) {
      return answer(`I could not assess the application: ${assessed.outcome.text}`);
    }
    return propose(conversation, assessed.outcome.data, { ...fields, ...(assessed.call.args as Fields) });
  }
  const gaps = missing(fields);
  if (gaps.length > 0) {
    return answer(
      `To assess this application I need ${gaps.join(', ')}.`,
      'For example: "Assess the loan application of Jane Doe: credit score 720, annual income $85,000, monthly debts $1,200, 6 years employed, requesting $25,000."',
    );
  }
  return callTools(conversation, `Assessing the application of ${fields.applicant}.`, [
    { name: 'assess_risk', args: fields },
  ]);
}
