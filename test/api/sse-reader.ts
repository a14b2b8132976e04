/** A server-sent events reader over fetch, for tests: messages as they arrive, until aborted. */
export interface SseMessage {
  event: string;
  id: string;
  data: unknown;
}

export interface SseStream {
  status: number;
  /** The next message, or null when the stream has ended. */
  next(): Promise<SseMessage | null>;
  /**
   * Reads until `predicate` holds for a message, returning every message read on the way. Gives up
   * (closing the stream) after `timeoutMs`, so a missing event fails the test instead of hanging it.
   */
  until(predicate: (m: SseMessage) => boolean, timeoutMs?: number): Promise<SseMessage[]>;
  close(): void;
}

export async function openSse(url: string, token: string, lastEventId?: string): Promise<SseStream> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'text/event-stream',
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    },
    signal: controller.signal,
  });
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  async function next(): Promise<SseMessage | null> {
    if (!reader) return null;
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const message: SseMessage = { event: 'message', id: '', data: undefined };
        const data: string[] = [];
        for (const line of block.split('\n')) {
          const colon = line.indexOf(':');
          if (colon === 0) continue;
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'event') message.event = value;
          else if (field === 'id') message.id = value;
          else if (field === 'data') data.push(value);
        }
        if (data.length === 0) continue;
        message.data = JSON.parse(data.join('\n'));
        return message;
      }
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done) return null;
      buffer += chunk.value;
    }
  }
  return {
    status: response.status,
    next,
    async until(predicate, timeoutMs = 60_000) {
      const seen: SseMessage[] = [];
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
      try {
        for (;;) {
          const message = await next();
          if (!message) {
            const saw = seen.map((m) => m.event).join(', ');
            throw new Error(
              timedOut
                ? `the awaited event did not come within ${timeoutMs} ms; saw ${saw}`
                : `stream ended before the awaited event; saw ${saw}`,
            );
          }
          seen.push(message);
          if (predicate(message)) return seen;
        }
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => controller.abort(),
  };
}
