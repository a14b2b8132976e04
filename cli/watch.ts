import { createInterface, type Interface } from 'node:readline/promises';
import type {
  ApprovalView,
  Decision,
  DecisionType,
  JsonSchema,
  TranscriptMessage,
} from '../protocol/index.js';
import {
  answerSchema,
  answerValue,
  editChanges,
  editDecision,
  outcomeText,
  submitDecision,
} from './decide.js';
import { readApprovals, WHOLE_LIST_LIMIT } from './approval-list.js';
import { editWarnings } from './edit-warnings.js';
import { approvalCard, terminalText } from './format.js';
import { KEYS, menuLabel } from './decision-labels.js';
import { CliError, type Api } from './http.js';
import { isTerminal, readSecret, secretProblem, withoutSecret } from './secret-input.js';
import { followEvents } from './sse.js';

export interface WatchOptions {
  agent?: string;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/** Allowance for the API's clock being behind this machine's. */
const CLOCK_SKEW_MS = 30_000;

/** A question given up because what it asked about changed (or a new approval arrived). */
const INTERRUPTED = Symbol('interrupted');
type Answer = string | null | typeof INTERRUPTED;

/** Ends a pending question when the terminal closes (Ctrl-D, end of piped input) or `signal` aborts. */
class Prompt {
  private closed: Promise<null>;

  constructor(private readonly rl: Interface) {
    this.closed = new Promise((resolve) => rl.once('close', () => resolve(null)));
  }

  /** The line typed; null when the input closed; INTERRUPTED when `signal` aborted first. */
  ask(question: string, signal?: AbortSignal): Promise<Answer> {
    const asked = this.rl.question(question, signal ? { signal } : {}).catch((error: unknown): Answer => {
      if (signal?.aborted) return INTERRUPTED;
      throw error;
    });
    return Promise.race([asked, this.closed]);
  }
}

/** The approval on screen, until a decision on it is sent. */
interface Shown {
  view: ApprovalView;
  /** Aborted when it changed or was decided elsewhere, to give up the question asked about it. */
  changed: AbortController;
  /** A decision from here is on its way: what happens to the approval now is its doing. */
  sending: boolean;
}

/** Events that change an approval someone may be looking at. */
const CHANGES = new Set(['approval.decided', 'approval.settled', 'approval.escalated']);

type Out = (line?: string) => void;

/**
 * An interactive terminal approver: shows each pending approval with its context as it arrives
 * (the API's live event stream) and sends the decision typed. Runs never wait on this process;
 * it is one more way to answer them, like the inbox: an approval decided elsewhere while shown is
 * left with a note, and the next one (or the idle prompt) is shown.
 */
export async function watch(api: Api, options: WatchOptions): Promise<void> {
  // Server text is made visible field by field (format.ts) and once more here, never obeyed.
  const out: Out = (line = '') => options.output.write(`${terminalText(line, { block: true })}\n`);
  let wake: (() => void) | undefined;
  const rl = createInterface({ input: options.input, output: options.output, terminal: false });
  const prompt = new Prompt(rl);
  const stop = new AbortController();
  rl.once('close', () => stop.abort());
  // Stopping must also end the wait for the next approval.
  stop.signal.addEventListener('abort', () => wake?.());

  // Approvals still to show, each read as pending (and of the agent asked for) when it arrived and
  // dropped when it settles: the "more waiting" count is what is really waiting.
  const queue: string[] = [];
  // Every approval queued or passed over once; an escalation brings one round again.
  const seen = new Set<string>();
  let shown: Shown | undefined;
  // How many changes the stream has told of, per approval: one shown from a read that an event
  // overtook is checked again at once.
  const changes = new Map<string, number>();
  const enqueue = (trackingId: string) => {
    queue.push(trackingId);
    wake?.();
  };
  const dequeue = (trackingId: string) => {
    const at = queue.indexOf(trackingId);
    if (at >= 0) queue.splice(at, 1);
  };
  const read = (trackingId: string) =>
    api.get<ApprovalView>(`/api/approvals/${encodeURIComponent(trackingId)}`);
  const waiting = (view: ApprovalView) =>
    view.status === 'pending' && (!options.agent || view.agent === options.agent);
  /** Whether a queued approval is still one to decide here (one that cannot be read now stays). */
  const stillWaiting = async (trackingId: string) => {
    const view = await read(trackingId).catch(() => undefined);
    return !view || waiting(view);
  };

  // The stream resumes from just before the list is read, so an approval requested in between is
  // not missed (the API's global event ids start with a time); `seen` drops the duplicates.
  const resumeFrom = `${Date.now() - CLOCK_SKEW_MS}~watch~0`;
  const { approvals } = await readApprovals(api, {
    status: 'pending',
    agent: options.agent,
    limit: WHOLE_LIST_LIMIT,
  });
  for (const approval of approvals) {
    seen.add(approval.trackingId);
    enqueue(approval.trackingId);
  }
  out(
    `Watching ${api.baseUrl} for approvals${options.agent ? ` of ${options.agent}` : ''}; ${approvals.length} pending. Ctrl-D or q quits.`,
  );

  /** An approval the stream names: queued if it is one to decide here. */
  const arrived = async (trackingId: string) => {
    seen.add(trackingId);
    // Read once on arrival: other agents' approvals, and ones already settled (the stream starts a
    // little in the past), are never queued. One that cannot be read now is queued to be tried.
    if (await stillWaiting(trackingId)) enqueue(trackingId);
  };
  /** The approval on screen changed: give up its question if it is not what was shown any more. */
  const recheck = async (current: Shown) => {
    const view = await read(current.view.trackingId).catch(() => undefined);
    const same =
      view &&
      view.status === current.view.status &&
      view.revision === current.view.revision &&
      view.approvals.length === current.view.approvals.length;
    if (!same && !current.sending) current.changed.abort();
  };

  let streamError: unknown;
  const stream = (async () => {
    for await (const event of followEvents(api, '/api/events', stop.signal, resumeFrom)) {
      if (!CHANGES.has(event.event) && event.event !== 'approval.requested') continue;
      const { trackingId } = JSON.parse(event.data) as { trackingId?: string };
      if (!trackingId) continue;
      if (CHANGES.has(event.event)) changes.set(trackingId, (changes.get(trackingId) ?? 0) + 1);
      if (event.event === 'approval.settled') dequeue(trackingId);
      if (shown && !shown.sending && shown.view.trackingId === trackingId && CHANGES.has(event.event)) {
        await recheck(shown);
        continue;
      }
      // An escalated approval comes round again for its new approvers.
      if (event.event === 'approval.escalated') {
        if (!queue.includes(trackingId)) await arrived(trackingId);
      } else if (event.event === 'approval.requested' && !seen.has(trackingId)) {
        await arrived(trackingId);
      }
    }
  })().catch((error: unknown) => {
    streamError = error;
    stop.abort();
    wake?.();
  });

  const context: Context = {
    agent: options.agent,
    input: options.input,
    output: options.output,
    prompt,
    out,
    changes: (trackingId) => changes.get(trackingId) ?? 0,
    show(view, mark) {
      const current: Shown = { view, changed: new AbortController(), sending: false };
      shown = current;
      if (mark !== context.changes(view.trackingId)) void recheck(current);
      return current;
    },
  };

  try {
    while (!stop.signal.aborted) {
      const next = queue.shift();
      if (next === undefined) {
        // Idle: a prompt still, so `q` quits; a new approval takes its place.
        const arrival = new AbortController();
        wake = () => arrival.abort();
        const answer = await prompt.ask('Waiting for approvals. [q]uit > ', arrival.signal);
        wake = undefined;
        if (answer === null) break;
        if (answer === INTERRUPTED) continue;
        if (answer.trim().toLowerCase() === 'q') break;
        if (answer.trim()) out('Nothing to decide yet: approvals show here as they arrive. q quits.');
        continue;
      }
      const result = await decideOne(api, next, context);
      shown = undefined;
      if (result === 'quit') break;
      // Counted from what is pending now: any queued approval settled since it arrived is dropped.
      const queued = [...queue];
      const keep = await Promise.all(queued.map(stillWaiting));
      queued.forEach((id, i) => keep[i] || dequeue(id));
      if (queue.length > 0) out(`(${queue.length} more waiting)`);
    }
  } finally {
    stop.abort();
    rl.close();
    await stream;
  }
  if (streamError) throw streamError;
}

interface Context {
  agent?: string;
  /** The terminal itself, for a secret read with echo off. */
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  prompt: Prompt;
  out: Out;
  /** How many changes the event stream has told of for this approval so far. */
  changes: (trackingId: string) => number;
  /**
   * Puts an approval on screen, where the event stream watches it; `mark` is `changes` before it
   * was read, so a change the read may have missed is checked at once.
   */
  show: (view: ApprovalView, mark: number) => Shown;
}

/** What became of an approval shown: `again` reads it anew (it changed, or a decision was refused). */
type ShownResult = 'done' | 'quit' | 'again' | 'refused';

/** What happened to an approval that is no longer pending, for the person who had it on screen. */
function settledNote(view: ApprovalView): string {
  const by = view.outcome?.by ?? [];
  const message = view.outcome?.message ? `: "${view.outcome.message}"` : '';
  return by.length > 0
    ? `${view.trackingId} was decided elsewhere by ${by.join(', ')} (${view.status})${message}. Moving on.`
    : `${view.trackingId} is ${view.status}${message}. Moving on.`;
}

async function decideOne(api: Api, trackingId: string, context: Context): Promise<'done' | 'quit'> {
  const { out } = context;
  const read = () => api.get<ApprovalView>(`/api/approvals/${encodeURIComponent(trackingId)}`);
  /** The approval as it is now, or undefined (said on the terminal) when it cannot be read. */
  const current = () =>
    read().catch((error: unknown) => {
      if (!(error instanceof CliError)) throw error;
      out(terminalText(error.message));
      return undefined;
    });
  let mark = context.changes(trackingId);
  const first = await current();
  if (!first) return 'done';
  let approval: ApprovalView = first;
  if (approval.status !== 'pending' || (context.agent && approval.agent !== context.agent)) return 'done';
  const run = await api
    .get<{
      input: string;
      transcript: TranscriptMessage[];
    }>(`/api/runs/${encodeURIComponent(approval.runId)}`)
    .catch(() => undefined);
  for (;;) {
    const result = await decideShown(api, context.show(approval, mark), run, context);
    if (result === 'done' || result === 'quit') return result;
    const before = approval;
    mark = context.changes(trackingId);
    const now = await current();
    if (!now) return 'done';
    approval = now;
    if (approval.status !== 'pending') {
      out(terminalText(settledNote(approval)));
      return 'done';
    }
    // Refused but still pending (already approved by you): nothing more to do here.
    if (result === 'refused') return 'done';
    out(
      terminalText(
        approval.revision !== before.revision
          ? `${trackingId} changed elsewhere (now revision ${approval.revision}); shown again as it is now.`
          : `${trackingId} changed elsewhere (approved so far by ${approval.approvals.map((s) => s.approver).join(', ') || 'nobody'}); shown again as it is now.`,
      ),
    );
  }
}

/** Shows one approval and asks for a decision until one is sent, it changes, or the person moves on. */
async function decideShown(
  api: Api,
  shown: Shown,
  run: { input: string; transcript: TranscriptMessage[] } | undefined,
  context: Context,
): Promise<ShownResult> {
  const { prompt, out } = context;
  const approval = shown.view;
  const signal = shown.changed.signal;
  out();
  out(approvalCard(approval, run));
  const choices = approval.allowedDecisions.map((d) => menuLabel(approval.kind, d)).join(' / ');
  for (;;) {
    const answer = await prompt.ask(`Decide: ${choices} / [k] skip / [q]uit > `, signal);
    if (answer === INTERRUPTED) return 'again';
    if (answer === null) return 'quit';
    const key = answer.trim().toLowerCase();
    if (key === 'q') return 'quit';
    if (key === 'k' || key === '') return 'done';
    const type = approval.allowedDecisions.find((d) => KEYS[d] === key);
    if (!type) {
      out(`Type one of: ${approval.allowedDecisions.map((d) => KEYS[d]).join(', ')}, k or q.`);
      continue;
    }
    const decision =
      approval.kind === 'secret' && type === 'respond'
        ? await secretDecision(approval, context, signal)
        : await buildDecision(api, type, approval, prompt, out, signal);
    if (decision === INTERRUPTED) return 'again';
    if (decision === null) return 'quit';
    if (decision === undefined) continue;
    shown.sending = true;
    try {
      const outcome = await submitDecision(api, approval.trackingId, decision, approval.revision);
      out(await outcomeText(api, approval.trackingId, outcome, approval.kind));
      return 'done';
    } catch (caught) {
      // Nothing says the secret back, even a server's answer that quoted it.
      const error =
        decision.type === 'respond' && decision.secret ? withoutSecret(caught, decision.secret) : caught;
      if (!(error instanceof CliError)) throw error;
      out(terminalText(error.message));
      error.details.forEach((d) => out(terminalText(d)));
      // Settled elsewhere, or already yours: say what became of it and move on. Changed since it
      // was shown: show it as it is now. Anything else (an invalid edit) can be tried again.
      if (/^HTTP 404/.test(error.message)) return 'done';
      if (/^HTTP 409/.test(error.message)) return 'refused';
      if (/^HTTP 412/.test(error.message)) return 'again';
      shown.sending = false;
      if (signal.aborted) return 'again';
    }
  }
}

/**
 * Asks for the secret an approval of kind `secret` needs: at a terminal with echo off (the keys go
 * to this reader alone meanwhile), else as the next line of input. Like `buildDecision`:
 * undefined goes back to the menu, null means the input closed, INTERRUPTED that it changed.
 */
async function secretDecision(
  approval: ApprovalView,
  { input, output, prompt, out }: Context,
  signal: AbortSignal,
): Promise<Decision | undefined | null | typeof INTERRUPTED> {
  const label = terminalText(approval.secret?.label ?? 'the secret');
  let secret: string;
  if (isTerminal(input)) {
    out('What you type is not shown. Enter sends it; Ctrl-C goes back.');
    const answer = await readSecret({ input, output, prompt: `${label}: `, signal, exclusive: true });
    if (!answer.ok) {
      if (answer.why === 'aborted') return INTERRUPTED;
      if (answer.why === 'closed') return null;
      out('Cancelled; nothing was sent.');
      return undefined;
    }
    secret = answer.secret;
  } else {
    // Piped input is never echoed: the secret is the next line as it is.
    const line = await prompt.ask(`${label} (the next line; it is not shown) > `, signal);
    if (line === null || line === INTERRUPTED) return line;
    secret = line;
  }
  const problem = secretProblem(secret);
  if (problem) {
    out(`${problem}; nothing was sent.`);
    return undefined;
  }
  return { type: 'respond', secret };
}

/**
 * Asks for what the decision needs; undefined goes back to the menu, null means the input closed,
 * INTERRUPTED that the approval changed meanwhile.
 */
async function buildDecision(
  api: Api,
  type: DecisionType,
  approval: ApprovalView,
  prompt: Prompt,
  out: Out,
  signal: AbortSignal,
): Promise<Decision | undefined | null | typeof INTERRUPTED> {
  if (type === 'approve') return { type };
  const outcome = approval.kind === 'outcome';
  if (type === 'reject') {
    const message = await prompt.ask(
      outcome
        ? 'Reason it failed, or what you know of it (sent to the agent; empty for none) > '
        : 'Reason (sent to the agent; empty for none) > ',
      signal,
    );
    if (message === null || message === INTERRUPTED) return message;
    return { type, ...(message.trim() ? { message: message.trim() } : {}) };
  }
  if (type === 'edit') {
    const isPlan = approval.kind === 'plan';
    const what = isPlan ? 'plan' : approval.kind === 'result' ? 'result' : 'arguments';
    const current = isPlan ? approval.plan : approval.kind === 'result' ? approval.result : approval.args;
    out(`Current ${what}: ${JSON.stringify(current)}`);
    const text = await prompt.ask(
      isPlan
        ? 'New plan as a JSON array of steps, or a one-step plan’s changed fields (empty to go back) > '
        : 'Changed fields as JSON; the others keep their values (empty to go back) > ',
      signal,
    );
    if (text === null || text === INTERRUPTED) return text;
    if (!text.trim()) return undefined;
    let changes: unknown;
    try {
      changes = JSON.parse(text) as unknown;
    } catch (error) {
      out(`Not valid JSON: ${(error as Error).message}`);
      return undefined;
    }
    try {
      // The same merge as `countersign edit`: fields left out keep their values.
      const decision = editDecision(approval, changes, undefined, 'an edit');
      if (!isPlan) {
        const changed = editChanges(approval, decision);
        if (changed.length === 0) {
          out('That changes nothing: approve it as it is, or name the fields to change.');
          return undefined;
        }
        out(terminalText(`Changes: ${changed.join(', ')}`));
      }
      for (const warning of await editWarnings(api, approval, decision)) out(terminalText(warning));
      return decision;
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      out(error.message);
      return undefined;
    }
  }
  const schema: JsonSchema = await answerSchema(api, approval).catch(() => ({}));
  // "It happened" stands in for the tool's own result: say what that result looks like.
  if (outcome) {
    const shape = Object.fromEntries(Object.entries(schema).filter(([key]) => key !== '$schema'));
    out(`Its result, as ${approval.tool} would have returned it: ${JSON.stringify(shape)}`);
  }
  const text = await prompt.ask(
    outcome ? 'Result (JSON, or plain text; empty to go back) > ' : 'Answer (plain text, or JSON) > ',
    signal,
  );
  if (text === null || text === INTERRUPTED) return text;
  if (outcome && !text.trim()) return undefined;
  try {
    return { type: 'respond', result: answerValue(text.trim(), schema, 'the answer') };
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    out(error.message);
    return undefined;
  }
}
