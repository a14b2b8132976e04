import { setTimeout as sleep } from 'node:timers/promises';
import type { ProcessStack, Role } from './process-stack.js';
import { ROLES } from './process-stack.js';
import type { Random } from './random.js';

export interface ChaosOptions {
  /**
   * Kills in all, in rounds that take every role once in a random order: each role is killed
   * `kills / 3` times, give or take one.
   */
  kills: number;
  /** Pause between the end of one restart and the next kill, in ms. */
  gapMs: [number, number];
  /** How long a killed process stays down, in ms. */
  downMs: [number, number];
}

export interface ChaosLog {
  kills: { role: Role; atMs: number }[];
}

/** Restarts until the process is up: a worker or API may not start while Temporal is down. */
export async function restartUntilUp(stack: ProcessStack, role: Role): Promise<void> {
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

/** A random order of every role, as many times over as `kills` needs. */
function killOrder(random: Random, kills: number): Role[] {
  const order: Role[] = [];
  while (order.length < kills) {
    const round = [...ROLES];
    for (let i = round.length - 1; i > 0; i--) {
      const j = random.int(0, i);
      [round[i], round[j]] = [round[j]!, round[i]!];
    }
    order.push(...round);
  }
  return order.slice(0, kills);
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
  const order = killOrder(random, options.kills);
  for (const role of order) {
    await sleep(random.int(...options.gapMs), undefined, { signal: stop }).catch(() => undefined);
    if (stop.aborted) break;
    log.kills.push({ role, atMs: Date.now() - started });
    await stack.kill(role);
    await sleep(random.int(...options.downMs));
    await restartUntilUp(stack, role);
  }
  return log;
}
