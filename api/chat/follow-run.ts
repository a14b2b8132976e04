/**
 * A run as it happens, in chat parts: its state is read each time its history grows (the same
 * long poll the run's event stream follows), and what changed since the last read is sent. Ends
 * when the run ends or waits for the reader; while it waits for others it goes on, live, so a
 * decision from the inbox, REST, an email link or the CLI shows as soon as the run takes it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApproverIdentity } from '../../protocol/index.js';
import type { ApiOptions } from '../context.js';
import { historyChanges } from '../live/history-watch.js';
import { isTransient, MAX_RETRY_MS, RETRY_MS } from '../live/sse.js';
import { readState } from '../runs/run-reads.js';
import { isWorkerNotAnswering } from '../runs/worker-wait.js';
import { contextLength } from './chat-runs.js';
import { partKey, runView, type ChatPart } from './run-parts.js';

export interface Follow {
  runId: string;
  reader: ApproverIdentity;
  /**
   * The steps the client shows already (0 for a new response, or a replay): their parts are not
   * sent again, except those of the last one that may have changed (its calls, approvals and
   * results).
   */
  stepsShown: number;
  /** Parts to send first (the refusals of the decisions the request carried). */
  first?: ChatPart[];
  /** The approval ids the request's decisions were taken for (see `runView`). */
  decided?: ReadonlySet<string>;
}

/** Whether the client already shows this part as it is now. */
function shown(part: ChatPart, steps: number): boolean {
  if (!('step' in part)) return false;
  return part.step < steps || (part.step === steps && (part.type === 'step' || part.type === 'text'));
}

export async function* followRun(
  options: ApiOptions,
  follow: Follow,
  signal: AbortSignal,
): AsyncGenerator<ChatPart> {
  const { client, namespace } = options;
  const { runId, reader, stepsShown } = follow;
  yield* follow.first ?? [];
  const context = await contextLength(client, namespace, runId);
  /** Each part as last sent, by key: a part is sent again only when it changed. */
  const sent = new Map<string, string>();
  let retryMs = RETRY_MS;
  while (!signal.aborted) {
    try {
      for await (const { closed } of historyChanges(client, namespace, runId, signal)) {
        const state = await readState(client, runId, options.workerWaitMs);
        const view = runView(state, reader, context, follow.decided);
        for (const part of view.parts) {
          const key = partKey(part);
          const json = JSON.stringify(part);
          if (sent.get(key) === json) continue;
          sent.set(key, json);
          if (!shown(part, stepsShown)) yield part;
        }
        retryMs = RETRY_MS;
        // A run closed without ending its own way (terminated) ends the stream too.
        if (view.ended || view.waitsOnReader || closed) {
          yield { type: 'finish', status: state.status, waitsOnReader: view.waitsOnReader };
          return;
        }
      }
      return;
    } catch (err) {
      if (signal.aborted) return;
      if (!isTransient(err) && !isWorkerNotAnswering(err)) throw err;
      // Read again after a pause that grows while the errors go on; what was sent stays sent.
      await sleep(retryMs, undefined, { signal }).catch(() => undefined);
      retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
    }
  }
}
