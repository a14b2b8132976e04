import { answerRequests, reportReady } from '../../test/faults/support/child.js';
import { pool } from '../../test/faults/support/pool.js';
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
        }
        return { full, decision };
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
