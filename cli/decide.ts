import { setTimeout as sleep } from 'node:timers/promises';
import type { Decision, DecisionOutcome } from '../protocol/index.js';
import { CliError, type Api } from './http.js';

type Answer = { outcome?: DecisionOutcome; status?: 'submitted'; location?: string };

/** How long to poll for the workflow to take a decision the API answered with 202. */
const POLL_MS = 15_000;

/**
 * Sends a decision and waits for the workflow's verdict. The API answers at once when the run
 * took it in time; otherwise it gives a location to poll, which this follows for a while.
 */
export async function submitDecision(
  api: Api,
  trackingId: string,
  decision: Decision,
  /** The revision of the proposal the person decided on: a changed one is refused, never signed. */
  revision: number,
): Promise<DecisionOutcome | Answer> {
  const route = `/api/approvals/${encodeURIComponent(trackingId)}/decision`;
  const response = await api.request<Answer>('POST', route, decision, {
    'x-countersign-channel': 'cli',
    'if-match': `"${revision}"`,
  });
  if (response.body.outcome) return response.body.outcome;
  let answer = response.body;
  const deadline = Date.now() + POLL_MS;
  while (answer.location && Date.now() < deadline) {
    await sleep(500);
    const polled = await api.request<Answer>('GET', answer.location);
    if (polled.body.outcome) return polled.body.outcome;
    answer = polled.body;
  }
  return answer;
}

export function describeOutcome(trackingId: string, result: DecisionOutcome | Answer): string {
  if ('accepted' in result) {
    const quorum =
      result.requiredApprovals > 1 ? ` (${result.approvals}/${result.requiredApprovals} approvals)` : '';
    const revision = result.revision !== undefined ? ` on revision ${result.revision}` : '';
    return `${trackingId}: ${result.status}${quorum}${revision}`;
  }
  return `${trackingId}: decision submitted; the run has not taken it yet (poll ${result.location ?? 'the approval'}).`;
}

export function parseJsonOption(name: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliError(`--${name} is not valid JSON: ${(error as Error).message}`);
  }
}
