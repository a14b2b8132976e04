import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { ErrorBody } from './errors.js';

/**
 * Serves an HTTP server's whole life: `503` with `Retry-After` while the service starts, the
 * handler once it is {@link ServingGate.open | open}, and on the way down `503` again while the
 * requests already in flight finish. So a port can listen from the first moment (and a taken port
 * fail before anything else starts) without a request ever being accepted and left unanswered.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createApi, servingGate } from 'countersign/api';
 *
 * const gate = servingGate();
 * const server = createServer(gate.listener).listen(3000);
 * // ...connect to Temporal, start the worker...
 * gate.open(createApi(apiOptions));
 * process.once('SIGTERM', async () => {
 *   await gate.close();
 *   server.close();
 *   server.closeAllConnections();
 * });
 * ```
 */
export interface ServingGate {
  /** Pass to `http.createServer` (or `server.on('request', ...)`). */
  readonly listener: RequestListener;
  /** From now on requests reach `handler`. */
  open(handler: RequestListener): void;
  /**
   * New requests get `503` (with `Connection: close`), event streams (requests that accept
   * `text/event-stream`) are ended, and the promise
   * resolves once the other requests in flight are answered or `graceMs` has passed.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * How a {@link ServingGate} answers while the service starts.
 *
 * @example
 * ```ts
 * const gate = servingGate({ retryAfterSeconds: 5 });
 * ```
 */
export interface ServingGateOptions {
  /** Seconds a client is told to wait before trying again while the service starts. Default 2. */
  retryAfterSeconds?: number;
}

type State = 'starting' | 'open' | 'closing';

function unavailable(res: ServerResponse, state: State, retryAfterSeconds: number): void {
  const starting = state === 'starting';
  const body: ErrorBody = {
    error: starting
      ? { code: 'starting', message: 'Countersign is starting; try again shortly' }
      : { code: 'shutting_down', message: 'Countersign is shutting down' },
  };
  res.statusCode = 503;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  if (starting) res.setHeader('Retry-After', String(retryAfterSeconds));
  else res.setHeader('Connection', 'close');
  res.end(JSON.stringify(body));
}

/** EventSource always asks for this; the response's own headers may never be readable back. */
const asksForStream = (req: IncomingMessage) => (req.headers.accept ?? '').includes('text/event-stream');

/**
 * Creates a {@link ServingGate}; it answers `503` until opened.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createApi, servingGate } from 'countersign/api';
 *
 * const gate = servingGate();
 * const server = createServer(gate.listener).listen(3000);
 * gate.open(createApi(apiOptions)); // once Temporal and the worker are up
 * ```
 */
export function servingGate(options: ServingGateOptions = {}): ServingGate {
  const retryAfterSeconds = options.retryAfterSeconds ?? 2;
  let state: State = 'starting';
  let handler: RequestListener | undefined;
  const inFlight = new Map<ServerResponse, { stream: boolean }>();
  let settled: (() => void) | undefined;

  const listener: RequestListener = (req: IncomingMessage, res: ServerResponse) => {
    if (state !== 'open' || !handler) return unavailable(res, state, retryAfterSeconds);
    inFlight.set(res, { stream: asksForStream(req) });
    res.once('close', () => {
      inFlight.delete(res);
      if (inFlight.size === 0) settled?.();
    });
    handler(req, res);
  };

  return {
    listener,
    open(next) {
      if (state === 'closing') throw new Error('this gate is closed; it does not open again');
      handler = next;
      state = 'open';
    },
    async close(graceMs = 5_000) {
      state = 'closing';
      // A stream never finishes by itself; its client reconnects to whichever server is up next.
      for (const [res, { stream }] of inFlight) if (stream) res.end();
      if (inFlight.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        settled = resolve;
        timer = setTimeout(resolve, graceMs);
      });
      clearTimeout(timer);
    },
  };
}
