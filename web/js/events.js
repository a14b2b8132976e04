// @ts-check
import { authorization } from './api.js';

/** @typedef {{ event: string, id: string, data: unknown }} StreamMessage */

/**
 * Server-sent events over fetch, so a bearer token travels in a header rather than the URL
 * (EventSource cannot send one). Reconnects with Last-Event-ID, as EventSource would.
 * @param {string} url
 * @param {{
 *   onEvent: (message: StreamMessage) => void,
 *   onState: (state: 'live' | 'reconnecting' | 'ended' | 'unauthorized') => void,
 *   signal: AbortSignal,
 * }} handlers
 */
export async function subscribe(url, { onEvent, onState, signal }) {
  let lastId = '';
  while (!signal.aborted) {
    try {
      const response = await fetch(url, {
        headers: {
          ...authorization(),
          accept: 'text/event-stream',
          ...(lastId ? { 'last-event-id': lastId } : {}),
        },
        signal,
      });
      if (response.status === 204 || response.status === 401) {
        onState(response.status === 401 ? 'unauthorized' : 'ended');
        return;
      }
      if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`);
      onState('live');
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value.replace(/\r\n?/g, '\n');
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const message = parseBlock(block);
          if (message.id) lastId = message.id;
          if (message.data !== undefined) onEvent(message);
        }
      }
    } catch {
      if (signal.aborted) return;
    }
    onState('reconnecting');
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

/**
 * @param {string} block
 * @returns {StreamMessage}
 */
function parseBlock(block) {
  /** @type {StreamMessage} */
  const message = { event: 'message', id: '', data: undefined };
  const data = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') message.event = value;
    else if (field === 'id') message.id = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length > 0) {
    try {
      message.data = JSON.parse(data.join('\n'));
    } catch {
      message.data = data.join('\n');
    }
  }
  return message;
}
