import { setTimeout as sleep } from 'node:timers/promises';
import type { ProcessStack, Role } from './process-stack.js';
import { ROLES } from './process-stack.js';
import type { Random } from './random.js';

export interface ChaosOptions {
  /** Kills in all; the first three take each role once, in a random order. */
  kills: number;
  /** Pause between the end of one restart and the next kill, in ms. */
  gapMs: [number, number];
  /** How long a killed process stays down, in ms. */
  downMs: [number, number];
}

export interface ChaosLog {
  kills: { role: Role; atMs: number }[];
}

/** Restarts until the process is up: a worker or API may not start while the devserver is down. */
async function restartUntilUp(stack: ProcessStack, role: Role): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await stack.restart(role);
      return;
    } catch (err) {
      if (attempt >= 20) throw err;
      await sleep(500);
    }
  }
}

/**
 * SIGKILLs the stack's processes one at a time at random moments and restarts each, until the
 * kills are spent or `stop` aborts. One process is down at a time, as a supervisor restarts it.
 */
export async function unleashChaos(
  stack: ProcessStack,
  random: Random,
  options: ChaosOptions,
  stop: AbortSignal,
): Promise<ChaosLog> {
  const log: ChaosLog = { kills: [] };
  const started = Date.now();
  const order = [...ROLES].sort(() => random.next() - 0.5);
  for (let i = 0; i < options.kills && !stop.aborted; i++) {
    await sleep(random.int(...options.gapMs), undefined, { signal: stop }).catch(() => undefined);
    if (stop.aborted) break;
    const role = i < order.length ? order[i]! : random.pick(ROLES);
    log.kills.push({ role, atMs: Date.now() - started });
    await stack.kill(role);
    await sleep(random.int(...options.downMs));
    await restartUntilUp(stack, role);
  }
  return log;
}
