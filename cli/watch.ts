import { createInterface, type Interface } from 'node:readline/promises';
import type { ApprovalView, Decision, DecisionType, TranscriptMessage } from '../protocol/index.js';
import { describeOutcome, submitDecision } from './decide.js';
import { readApprovals } from './approval-list.js';
import { approvalCard, terminalText } from './format.js';
import { CliError, type Api } from './http.js';
import { followEvents } from './sse.js';

export interface WatchOptions {
  agent?: string;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

const KEYS: Record<DecisionType, string> = { approve: 'a', edit: 'e', reject: 'r', respond: 's' };
const LABELS: Record<DecisionType, string> = {
  approve: '[a]pprove',
  edit: '[e]dit',
  reject: '[r]eject',
  respond: 're[s]pond',
};

/** Allowance for the API's clock being behind this machine's. */
const CLOCK_SKEW_MS = 30_000;

/** Ends a pending question when the terminal closes (Ctrl-D, end of piped input). */
class Prompt {
  private closed: Promise<null>;

  constructor(private readonly rl: Interface) {
    this.closed = new Promise((resolve) => rl.once('close', () => resolve(null)));
  }

  ask(question: string): Promise<string | null> {
    return Promise.race([this.rl.question(question), this.closed]);
  }
}

/**
 * An interactive terminal approver: shows each pending approval with its context as it arrives
 * (the API's live event stream) and sends the decision typed. Runs never wait on this process;
 * it is one more way to answer them, like the inbox.
 */
export async function watch(api: Api, options: WatchOptions): Promise<void> {
  // Server text is made visible field by field (format.ts) and once more here, never obeyed.
  const out = (line = '') => options.output.write(`${terminalText(line, { block: true })}\n`);
  let wake: (() => void) | undefined;
  const rl = createInterface({ input: options.input, output: options.output, terminal: false });
  const prompt = new Prompt(rl);
  const stop = new AbortController();
  rl.once('close', () => stop.abort());
  // Stopping must also end the wait for the next approval.
  stop.signal.addEventListener('abort', () => wake?.());

  const queue: string[] = [];
  const queued = new Set<string>();
  const enqueue = (trackingId: string) => {
    if (queued.has(trackingId)) return;
    queued.add(trackingId);
    queue.push(trackingId);
    wake?.();
  };

  // The stream resumes from just before the list is read, so an approval requested in between is
  // not missed (the API's global event ids start with a time); the queue drops the duplicates.
  const resumeFrom = `${Date.now() - CLOCK_SKEW_MS}~watch~0`;
  const { approvals } = await readApprovals(api, { status: 'pending', agent: options.agent });
  approvals.forEach((a) => enqueue(a.trackingId));
  out(
    `Watching ${api.baseUrl} for approvals${options.agent ? ` of ${options.agent}` : ''}; ${approvals.length} pending. Ctrl-D or q quits.`,
  );

  let streamError: unknown;
  const stream = (async () => {
    for await (const event of followEvents(api, '/api/events', stop.signal, resumeFrom)) {
      if (event.event !== 'approval.requested' && event.event !== 'approval.escalated') continue;
      const { trackingId } = JSON.parse(event.data) as { trackingId?: string };
      if (!trackingId) continue;
      // An escalated approval comes round again for its new approvers.
      if (event.event === 'approval.escalated') queued.delete(trackingId);
      enqueue(trackingId);
    }
  })().catch((error: unknown) => {
    streamError = error;
    stop.abort();
    wake?.();
  });

  try {
    while (!stop.signal.aborted) {
      const next = queue.shift();
      if (next === undefined) {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        continue;
      }
      if ((await decideOne(api, next, options.agent, prompt, out)) === 'quit') break;
      if (queue.length > 0) out(`(${queue.length} more waiting)`);
    }
  } finally {
    stop.abort();
    rl.close();
    await stream;
  }
  if (streamError) throw streamError;
}

async function decideOne(
  api: Api,
  trackingId: string,
  agent: string | undefined,
  prompt: Prompt,
  out: (line?: string) => void,
): Promise<'done' | 'quit'> {
  const approval = await api.get<ApprovalView>(`/api/approvals/${encodeURIComponent(trackingId)}`);
  if (approval.status !== 'pending' || (agent && approval.agent !== agent)) return 'done';
  const run = await api
    .get<{
      input: string;
      transcript: TranscriptMessage[];
    }>(`/api/runs/${encodeURIComponent(approval.runId)}`)
    .catch(() => undefined);
  out();
  out(approvalCard(approval, run));
  const choices = approval.allowedDecisions.map((d) => LABELS[d]).join(' / ');
  for (;;) {
    const answer = await prompt.ask(`Decide: ${choices} / [k] skip / [q]uit > `);
    if (answer === null) return 'quit';
    const key = answer.trim().toLowerCase();
    if (key === 'q') return 'quit';
    if (key === 'k' || key === '') return 'done';
    const type = approval.allowedDecisions.find((d) => KEYS[d] === key);
    if (!type) {
      out(`Type one of: ${approval.allowedDecisions.map((d) => KEYS[d]).join(', ')}, k or q.`);
      continue;
    }
    const decision = await buildDecision(type, approval, prompt, out);
    if (decision === null) return 'quit';
    if (decision === undefined) continue;
    try {
      const outcome = await submitDecision(api, trackingId, decision, approval.revision);
      out(terminalText(describeOutcome(trackingId, outcome)));
      return 'done';
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      out(terminalText(error.message));
      error.details.forEach((d) => out(terminalText(d)));
      // An approval settled elsewhere is done; one changed elsewhere is shown again as it is now;
      // anything else (an invalid edit) can be tried again.
      if (/^HTTP (404|409)/.test(error.message)) return 'done';
      if (/^HTTP 412/.test(error.message)) return decideOne(api, trackingId, agent, prompt, out);
    }
  }
}

/** Asks for what the decision needs; undefined goes back to the menu, null means the input closed. */
async function buildDecision(
  type: DecisionType,
  approval: ApprovalView,
  prompt: Prompt,
  out: (line?: string) => void,
): Promise<Decision | undefined | null> {
  if (type === 'approve') return { type };
  if (type === 'reject') {
    const message = await prompt.ask('Reason (sent to the agent) > ');
    return message === null ? null : { type, ...(message.trim() ? { message: message.trim() } : {}) };
  }
  if (type === 'edit') {
    const isPlan = approval.kind === 'plan';
    out(
      `Current ${isPlan ? 'plan' : 'arguments'}: ${JSON.stringify(isPlan ? approval.plan : approval.args)}`,
    );
    const text = await prompt.ask(`New ${isPlan ? 'plan' : 'arguments'} as JSON (empty to go back) > `);
    if (text === null) return null;
    if (!text.trim()) return undefined;
    try {
      const value = JSON.parse(text) as unknown;
      return isPlan ? ({ type, plan: value } as Decision) : ({ type, args: value } as Decision);
    } catch (error) {
      out(`Not valid JSON: ${(error as Error).message}`);
      return undefined;
    }
  }
  const text = await prompt.ask('Answer (JSON, or plain text) > ');
  if (text === null) return null;
  let result: unknown = text.trim();
  try {
    result = JSON.parse(text);
  } catch {
    // Plain text is an answer too, for questions asked through ask_human.
  }
  return { type: 'respond', result } as Decision;
}
