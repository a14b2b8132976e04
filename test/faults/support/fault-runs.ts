import { setTimeout as sleep } from 'node:timers/promises';
import { trackingIdFor, type ApprovalStatus, type RunStatus } from '../../../protocol/index.js';
import { FAULT_AGENT } from './fault-agents.js';
import { inputFor } from './fault-model.js';
import type { FaultStack } from './fault-stack.js';
import type { Choice, FinalView, PlannedRun } from './invariants.js';
import type { Random } from './random.js';
import type { Rest } from './rest.js';

const CHOICES: Choice[] = ['approve', 'edit', 'reject'];

/** Starts `count` runs through the API, each with the decision a human will take on it. */
export async function startPlannedRuns(fs: FaultStack, random: Random, count: number): Promise<PlannedRun[]> {
  const runs: PlannedRun[] = [];
  for (let i = 0; i < count; i++) {
    const ref = `r${i}-${random.int(0, 999_999)}`;
    const amount = random.int(1, 10_000);
    const reply = await fs.requester.send<{ runId: string }>('POST', '/api/runs', {
      agent: FAULT_AGENT,
      input: inputFor(ref, amount),
    });
    if (reply.status !== 201)
      throw new Error(`starting run ${i}: ${reply.status} ${JSON.stringify(reply.body)}`);
    const { runId } = reply.body;
    runs.push({
      runId,
      trackingId: trackingIdFor(runId, 1),
      ref,
      amount,
      choice: random.pick(CHOICES),
      editedAmount: amount + 1,
      acknowledged: false,
    });
  }
  return runs;
}

function bodyFor(run: PlannedRun) {
  if (run.choice === 'edit') return { type: 'edit', args: { ref: run.ref, amount: run.editedAmount } };
  if (run.choice === 'reject') return { type: 'reject', message: 'the fault suite refuses this' };
  return { type: 'approve' };
}

/**
 * What a careful client does: wait until the approval is pending, then send the decision with an
 * Idempotency-Key, retrying through every outage until the API acknowledges it (200 or 202).
 */
export async function decide(reviewer: Rest, run: PlannedRun, delayMs: number): Promise<void> {
  const shown = await reviewer.retry<{ status?: string }>(
    'GET',
    `/api/approvals/${run.trackingId}`,
    undefined,
    (r) => r.status === 200 && r.body.status === 'pending',
  );
  await sleep(delayMs);
  const reply = await reviewer.retry(
    'POST',
    `/api/approvals/${run.trackingId}/decision`,
    bodyFor(run),
    (r) => [200, 202, 409].includes(r.status),
    {
      // The decision names the revision the reviewer was shown.
      headers: { 'idempotency-key': `faults-${run.runId}`, 'if-match': shown.headers.get('etag') ?? '' },
    },
  );
  run.acknowledged = reply.status === 200 || reply.status === 202;
}

const CLOSED: RunStatus[] = ['completed', 'failed', 'cancelled'];

interface RunDetail {
  status: RunStatus;
  output?: string;
  pending: unknown[];
  events: { type: string }[];
}

/**
 * Waits until the run has ended, or `deadline` (epoch ms) has passed, then reads what the API
 * shows of it. A run still going at the deadline is returned as it is, for the invariants to name.
 */
export async function finalView(reviewer: Rest, run: PlannedRun, deadline: number): Promise<FinalView> {
  let detail: RunDetail | undefined;
  for (;;) {
    const reply = await reviewer.send<RunDetail>('GET', `/api/runs/${run.runId}`).catch(() => undefined);
    if (reply?.status === 200) detail = reply.body;
    if ((detail && CLOSED.includes(detail.status)) || Date.now() > deadline) break;
    await sleep(250);
  }
  const approval = await reviewer.retry<{ status: ApprovalStatus }>(
    'GET',
    `/api/approvals/${run.trackingId}`,
    undefined,
    (r) => r.status === 200,
  );
  return {
    status: detail?.status ?? 'running',
    output: detail?.output,
    approvalStatus: approval.body.status,
    pendingInRun: detail?.pending.length ?? 0,
    lastEvent: detail?.events.at(-1)?.type,
  };
}

/** Run ids the inbox still lists as waiting. */
export async function inboxRunIds(reviewer: Rest): Promise<Set<string>> {
  const ids = new Set<string>();
  let pageToken = '';
  do {
    const reply = await reviewer.retry<{ approvals: { runId: string }[]; nextPageToken?: string }>(
      'GET',
      `/api/approvals?status=pending&limit=1000${pageToken ? `&pageToken=${pageToken}` : ''}`,
      undefined,
      (r) => r.status === 200,
    );
    for (const approval of reply.body.approvals) ids.add(approval.runId);
    pageToken = reply.body.nextPageToken ?? '';
  } while (pageToken);
  return ids;
}

/**
 * The inbox once it has caught up: Temporal's list reads visibility, which a run's close reaches
 * a moment after the run itself. Lists until none of `runs` is listed or `deadline` (epoch ms) has
 * passed, and returns the last answer, for the invariants to name what stayed.
 */
export async function settledInbox(
  reviewer: Rest,
  runs: PlannedRun[],
  deadline: number,
): Promise<Set<string>> {
  for (;;) {
    const listed = await inboxRunIds(reviewer);
    if (!runs.some((run) => listed.has(run.runId)) || Date.now() > deadline) return listed;
    await sleep(250);
  }
}
