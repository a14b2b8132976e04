/**
 * Where decision->done goes (prints figures, asserts nothing). The Temporal dev server and the
 * worker run as in the bench's countersign-signal system; for each of `--runs` paused runs, one
 * approval is signalled and the run's history, read after it finished, tells how long each step
 * took: the time from each event to the next, from the signal to the close. The p50 of every step
 * is printed, in the order the steps happen. `--by update` sends it as `sendDecision` does with a
 * worker up, as an update: the steps then start at the workflow task that took it.
 */
import { parseArgs } from 'node:util';
import type proto from '@temporalio/proto';
import { startRun } from '../client/index.js';
import { approveFirst, startBenchStack, type ServerSettings } from './lib/bench-stack.js';
import { waitUntilPaused } from './lib/history-wait.js';
import { inputFor } from './lib/scenario.js';
import { percentile } from './lib/stats.js';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '100' },
    server: { type: 'string', default: 'one-machine' },
    by: { type: 'string', default: 'signal' },
  },
});
const runs = Number(values.runs);
const byUpdate = values.by === 'update';
if (
  !Number.isInteger(runs) ||
  runs < 1 ||
  !['one-machine', 'defaults'].includes(values.server) ||
  !['signal', 'update'].includes(values.by)
)
  throw new Error(
    'usage: npm run bench:timeline -- [--runs N] [--server one-machine|defaults] [--by signal|update]',
  );

const ms = (e: HistoryEvent) =>
  Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);

/** A step's name: its event type, and for a scheduled activity, which one. */
function stepOf(event: HistoryEvent): string {
  const attributes = Object.keys(event).find((key) => key.endsWith('EventAttributes')) ?? 'unknown';
  const activity = event.activityTaskScheduledEventAttributes?.activityType?.name;
  return `${attributes.replace(/EventAttributes$/, '')}${activity ? ` (${activity})` : ''}`;
}

const bench = await startBenchStack('timeline', values.server as ServerSettings);
const { client, agent } = bench;

const steps = new Map<string, number[]>();
const record = (step: string, value: number) => steps.set(step, [...(steps.get(step) ?? []), value]);
try {
  for (let i = 0; i < runs; i++) {
    const { runId } = await startRun(client, { agent, input: inputFor('timeline', i) });
    await waitUntilPaused(async (nextPageToken) => {
      const page = await client.workflowService.getWorkflowExecutionHistory({
        namespace: 'default',
        execution: { workflowId: runId },
        waitNewEvent: true,
        nextPageToken,
      });
      return { events: page.history?.events ?? [], nextPageToken: page.nextPageToken };
    }, 'requestApproval');
    const sent = Date.now();
    await approveFirst(client, runId, byUpdate ? 'update' : 'signal', 'timeline');
    const handle = client.workflow.getHandle(runId);
    await handle.result();
    const seen = Date.now();
    const events = (await handle.fetchHistory()).events ?? [];
    const signal = events.findIndex((e) => e.workflowExecutionSignaledEventAttributes);
    // An update's workflow task is written with the update, when the task completes.
    const accepted = events.findIndex((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    const scheduled = events.slice(0, accepted).map((e) => Boolean(e.workflowTaskScheduledEventAttributes));
    const first = byUpdate ? scheduled.lastIndexOf(true) : signal;
    let previous = sent;
    // Steps are keyed by position too: the same event type comes back in every workflow task.
    for (const [n, event] of events.slice(first).entries()) {
      record(`${String(n).padStart(2)} ${stepOf(event)}`, ms(event) - previous);
      previous = ms(event);
    }
    record('   result seen by the client', seen - previous);
    record('   decision->done', seen - sent);
  }
} finally {
  await bench.stop();
}

console.log(`decision->done, step by step: p50 ms over ${runs} runs (history times are whole ms)`);
for (const [step, samples] of steps) console.log(`${step.padEnd(50)} ${percentile(samples, 50)}`);
