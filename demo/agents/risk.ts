/** What the risk assessment reads about an applicant. */
export interface Applicant {
  applicant: string;
  creditScore: number;
  annualIncome: number;
  /** Monthly debt payments before this loan. */
  monthlyDebt: number;
  employmentYears: number;
  amount: number;
  termMonths: number;
}

export interface RiskAssessment {
  applicant: string;
  score: number;
  rating: 'low' | 'medium' | 'high';
  debtToIncome: number;
  monthlyPayment: number;
  interestRate: number;
  recommendation: 'approve_loan' | 'decline_loan';
  reasons: string[];
}

const BASE_RATE = 0.065;

/** Amortized monthly payment of a fixed-rate loan. */
export function monthlyPayment(amount: number, annualRate: number, termMonths: number): number {
  const r = annualRate / 12;
  return r === 0 ? amount / termMonths : (amount * r) / (1 - (1 + r) ** -termMonths);
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * A transparent scorecard (0-100): credit history, debt-to-income after the new payment,
 * employment history and the amount against income. Deterministic, so a reviewer can check it.
 */
export function assessRisk(a: Applicant): RiskAssessment {
  const reasons: string[] = [];
  const credit = Math.max(0, Math.min(40, ((a.creditScore - 550) / 250) * 40));
  if (a.creditScore < 620) reasons.push(`credit score ${a.creditScore} is below 620`);

  const provisionalRate = BASE_RATE + Math.max(0, (740 - a.creditScore) / 1000);
  const payment = monthlyPayment(a.amount, provisionalRate, a.termMonths);
  const dti = (a.monthlyDebt + payment) / (a.annualIncome / 12);
  const dtiPoints = dti <= 0.2 ? 30 : dti <= 0.36 ? 20 : dti <= 0.43 ? 10 : 0;
  if (dti > 0.43) reasons.push(`debt-to-income of ${(dti * 100).toFixed(0)}% exceeds 43%`);

  const employment = Math.min(15, a.employmentYears * 3);
  if (a.employmentYears < 1) reasons.push('less than a year of employment history');

  const loanToIncome = a.amount / a.annualIncome;
  const sizePoints = loanToIncome <= 0.25 ? 15 : loanToIncome <= 0.5 ? 10 : loanToIncome <= 1 ? 5 : 0;
  if (loanToIncome > 1) reasons.push('the amount exceeds a year of income');

  const score = Math.round(credit + dtiPoints + employment + sizePoints);
  const recommendation = score >= 60 && reasons.length === 0 ? 'approve_loan' : 'decline_loan';
  if (recommendation === 'decline_loan' && reasons.length === 0)
    reasons.push(`risk score ${score} is below 60`);
  if (recommendation === 'approve_loan')
    reasons.push(`risk score ${score} with debt-to-income ${(dti * 100).toFixed(0)}%`);
  return {
    applicant: a.applicant,
    score,
    rating: score >= 75 ? 'low' : score >= 60 ? 'medium' : 'high',
    debtToIncome: round2(dti),
    monthlyPayment: round2(payment),
    interestRate: round2(provisionalRate * 100),
    recommendation,
    reasons,
  };
}
