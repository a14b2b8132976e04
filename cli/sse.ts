import { setTimeout as sleep } from 'node:timers/promises';
import { CliError, type Api } from './http.js';

export interface ServerEvent {
  id?: string;
  event: string;
  data: string;
}

/** Parses one `text/event-stream` body into events, as an EventSource would. */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: ServerEvent = { event: 'message', data: '' };
  let hasData = false;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.search(/\r?\n/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer[newline] === '\r' ? 2 : 1));
      if (line === '') {
        if (hasData) yield event;
        event = { event: 'message', data: '' };
        hasData = false;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') {
        event.data = hasData ? `${event.data}\n${value}` : value;
        hasData = true;
      } else if (field === 'event') event.event = value;
      else if (field === 'id') event.id = value;
    }
  }
}

/**
 * Follows an SSE route for as long as `signal` allows, reconnecting with `Last-Event-ID` after a
 * dropped connection so no event is missed or repeated.
 */
export async function* followEvents(
  api: Api,
  route: string,
  signal: AbortSignal,
  resumeFrom?: string,
): AsyncGenerator<ServerEvent> {
  let lastId = resumeFrom;
  while (!signal.aborted) {
    let response: Response;
    try {
      response = await api.fetch(route, {
        headers: { accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
        signal,
      });
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    }
    if (response.status === 401 || response.status === 403) {
      throw new CliError(
        `HTTP ${response.status}: not allowed to follow ${route}. Check --token or COUNTERSIGN_TOKEN.`,
      );
    }
    if (!response.ok || !response.body) throw new CliError(`HTTP ${response.status} from ${route}`);
    try {
      for await (const event of readEvents(response.body)) {
        if (event.id) lastId = event.id;
        yield event;
      }
    } catch {
      // A dropped connection: reconnect below and resume from the last id.
      if (signal.aborted) return;
    }
    await sleep(1000, undefined, { signal }).catch(() => undefined);
  }
}
