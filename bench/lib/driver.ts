import { answerRequests, reportReady } from '../../test/faults/support/child.js';
import { pool } from '../../test/faults/support/pool.js';
import type { RoundTrips } from './round-trips.js';
import type { RunBytes } from './server-bytes.js';
import { FINAL_PREFIX, inputFor, refOf, toolResult } from './scenario.js';
import { now } from './stats.js';

/** One system's side of the scenario, as the driver process sees it. */
export interface SystemDriver<Run> {
  /** Starts run `input` and resolves once it waits for its approval. */
  startPaused(input: string): Promise<Run>;
  /** Starts many runs and resolves once all wait; the default starts them with bounded concurrency. */
  startManyPaused?(inputs: string[], inFlight: number): Promise<Run[]>;
  /** Sends the approval; resolves once the system has acknowledged it. */
  approve(run: Run): Promise<void>;
  /** Resolves the moment the run has finished. */
  finished(run: Run): Promise<void>;
  /** The run's final answer, read after the clock has stopped. */
  answer(run: Run): Promise<string>;
  /** Input the run was started with, to check its answer. */
  inputOf(run: Run): string;
  /** Opens the live stream an open inbox keeps, where the system has one; resolves to its close. */
  openInbox?(): Promise<() => void>;
  /** What the run did between its decision and its end, read once it has finished. */
  roundTrips?(run: Run): Promise<RoundTrips>;
  /** What a paused run keeps on the server that the system wrote there, where it has a server. */
  runBytes?(run: Run): Promise<RunBytes>;
  /** A reviewer's reads, where the system has them: the inbox's first page, and one run's detail. */
  reads?: { firstPage(): Promise<void>; detail(run: Run): Promise<void> };
}

/** `count` runs spread evenly over a batch (each once while the batch has enough). */
const spread = <T>(items: readonly T[], count: number): T[] =>
  Array.from({ length: count }, (_, i) => items[Math.floor((i * items.length) / count)]!);

async function timed(work: () => Promise<void>): Promise<number> {
  const t0 = now();
  await work();
  return now() - t0;
}

function check(input: string, answer: string): void {
  const expected = `${FINAL_PREFIX}${toolResult(refOf(input))}`;
  // A benchmark that measures a broken run measures nothing: every answer is checked.
  if (!answer.includes(expected))
    throw new Error(`run ${input} answered ${JSON.stringify(answer)}, expected ${expected}`);
}

/**
 * The driver process: answers the orchestrator's phase requests against one system. Timings are
 * taken here, next to the calls, in milliseconds.
 */
export function serveDriver<Run>(system: string, driver: SystemDriver<Run>): void {
  let seq = 0;
  let held: Run[] = [];
  const nextInput = () => inputFor(system, seq++);

  answerRequests(async (message) => {
    switch (message.phase) {
      case 'sequential': {
        const full: number[] = [];
        const decision: number[] = [];
        const roundTrips: RoundTrips[] = [];
        for (let i = 0; i < Number(message.runs); i++) {
          const t0 = now();
          const run = await driver.startPaused(nextInput());
          const t1 = now();
          await driver.approve(run);
          await driver.finished(run);
          const t2 = now();
          check(driver.inputOf(run), await driver.answer(run));
          full.push(t2 - t0);
          decision.push(t2 - t1);
          if (driver.roundTrips) roundTrips.push(await driver.roundTrips(run));
        }
        return { full, decision, roundTrips };
      }
      case 'pause': {
        const inputs = Array.from({ length: Number(message.count) }, nextInput);
        const inFlight = Number(message.inFlight);
        const t0 = now();
        held = driver.startManyPaused
          ? await driver.startManyPaused(inputs, inFlight)
          : await pool(inputs, inFlight, (input) => driver.startPaused(input));
        return { pausedMs: now() - t0 };
      }
      case 'approveAll': {
        const runs = held;
        held = [];
        const inFlight = Number(message.inFlight);
        const t0 = now();
        // All decisions go out first, as a crowd of reviewers would send them; then the runs are awaited.
        await pool(runs, inFlight, (run) => driver.approve(run));
        await pool(runs, inFlight, (run) => driver.finished(run));
        const doneMs = now() - t0;
        await pool(runs, inFlight, async (run) => check(driver.inputOf(run), await driver.answer(run)));
        return { doneMs };
      }
      case 'weigh': {
        const weigh = driver.runBytes;
        if (!weigh) return { samples: [] };
        // Read one at a time: the server is weighed, not loaded.
        return {
          samples: await pool(spread(held, Math.min(held.length, Number(message.sample))), 1, (run) =>
            weigh(run),
          ),
        };
      }
      case 'reads': {
        const reads = driver.reads;
        if (!reads || held.length === 0) return undefined;
        const count = Number(message.count);
        const firstPage: number[] = [];
        const detail: number[] = [];
        // One request at a time, as one reviewer makes them; each detail is another run of the batch.
        for (let i = 0; i < count; i++) firstPage.push(await timed(() => reads.firstPage()));
        for (const run of spread(held, count)) detail.push(await timed(() => reads.detail(run)));
        return { firstPage, detail };
      }
      case 'inbox': {
        if (!driver.openInbox) return { open: false };
        const close = await driver.openInbox();
        await new Promise((resolve) => setTimeout(resolve, Number(message.ms)));
        close();
        return { open: true };
      }
      default:
        throw new Error(`unknown phase ${String(message.phase)}`);
    }
  });
  reportReady({ system });
}
