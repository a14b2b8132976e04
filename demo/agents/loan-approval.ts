import path from 'node:path';
import { z } from 'zod';
import { defineAgent, defineTool, type ApprovalPolicyInput } from 'countersign';
import { demoApprovers } from './approvers.js';
import { assessRisk, monthlyPayment } from './risk.js';
import { lazy, openDemoDatabase } from './sqlite.js';

const LOANS_SCHEMA = `CREATE TABLE IF NOT EXISTS loan_decisions (
  idempotency_key TEXT PRIMARY KEY, applicant TEXT NOT NULL, decision TEXT NOT NULL, result TEXT NOT NULL, at TEXT NOT NULL);`;

/** The loan officer decides both proposals. */
const officer = (): Pick<ApprovalPolicyInput, 'approvers' | 'allowSelfApproval' | 'decisions'> => ({
  ...demoApprovers('loan-officer'),
  decisions: ['approve', 'edit', 'reject'],
});

export function loanApprovalAgent(dataDir: string) {
  const book = lazy(() => openDemoDatabase(path.join(dataDir, 'demo', 'loans.db'), LOANS_SCHEMA));

  /** Records a decision once per idempotency key; a retry reads the first record back. */
  function record<T extends { applicant: string; decision: string }>(key: string, result: T): T {
    const db = book();
    return db
      .transaction(() => {
        const row = db.prepare('SELECT result FROM loan_decisions WHERE idempotency_key = ?').get(key) as
          | { result: string }
          | undefined;
        if (row) return JSON.parse(row.result) as T;
        db.prepare('INSERT INTO loan_decisions VALUES (?, ?, ?, ?, ?)').run(
          key,
          result.applicant,
          result.decision,
          JSON.stringify(result),
          new Date().toISOString(),
        );
        return result;
      })
      .immediate();
  }

  const assess = defineTool({
    name: 'assess_risk',
    description:
      'Score a loan applicant from 0 (worst) to 100: credit score, income, debt-to-income ratio, employment history and amount. Recommends approve_loan or decline_loan.',
    parameters: z.object({
      applicant: z.string().min(1).describe('Applicant name'),
      creditScore: z.number().int().min(300).max(850),
      annualIncome: z.number().positive().describe('Gross annual income in dollars'),
      monthlyDebt: z.number().min(0).describe('Existing monthly debt payments in dollars'),
      employmentYears: z.number().min(0).describe('Years with the current employer'),
      amount: z.number().positive().max(5_000_000).describe('Requested amount in dollars'),
      termMonths: z.number().int().min(6).max(360).default(60),
    }),
    // Reading numbers has no side effect; the officer decides on the proposal that follows.
    safe: true,
    execute: async (applicant) => ({ ...assessRisk(applicant) }),
  });

  const approve = defineTool({
    name: 'approve_loan',
    description: 'Approve the loan and record it in the loan book. A loan officer signs off first.',
    parameters: z.object({
      applicant: z.string().min(1),
      amount: z.number().positive().max(5_000_000),
      termMonths: z.number().int().min(6).max(360),
      interestRate: z.number().min(0).max(40).describe('Annual interest rate in percent'),
      riskScore: z.number().min(0).max(100),
    }),
    // Dedupes on the idempotency key: an attempt cut off is simply run again.
    idempotent: true,
    approval: {
      ...officer(),
      editableFields: ['amount', 'termMonths', 'interestRate'],
      description:
        'Approve a ${{amount}} loan for {{applicant}} over {{termMonths}} months at {{interestRate}}% (risk score {{riskScore}})',
    },
    execute: async (loan, { idempotencyKey }) =>
      record(idempotencyKey, {
        decision: 'approved',
        loanId: `loan-${idempotencyKey}`,
        ...loan,
        monthlyPayment:
          Math.round(monthlyPayment(loan.amount, loan.interestRate / 100, loan.termMonths) * 100) / 100,
      }),
  });

  const decline = defineTool({
    name: 'decline_loan',
    description:
      'Decline the loan application with the reasons given to the applicant. A loan officer signs off first.',
    parameters: z.object({
      applicant: z.string().min(1),
      amount: z.number().positive(),
      reasons: z.array(z.string().min(1)).min(1).describe('Reasons stated in the adverse-action notice'),
    }),
    // Dedupes on the idempotency key: an attempt cut off is simply run again.
    idempotent: true,
    approval: {
      ...officer(),
      editableFields: ['reasons'],
      description: 'Decline the ${{amount}} loan application of {{applicant}}',
    },
    execute: async (application, { idempotencyKey }) =>
      record(idempotencyKey, { decision: 'declined', ...application }),
  });

  return defineAgent({
    name: 'loan-approval',
    description: 'Scores loan applications and proposes approve_loan or decline_loan for a loan officer.',
    instructions: [
      'You assist loan officers. For each application, first call assess_risk with the applicant figures.',
      'Then propose approve_loan (with the assessed interest rate and risk score) or decline_loan (with the reasons), as the assessment recommends.',
      'A loan officer approves, edits or rejects your proposal; report what was finally decided. Never retry a rejected call.',
    ].join('\n'),
    tools: [assess, approve, decline],
  });
}
