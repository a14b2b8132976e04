import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * `fetch` for the Streamable HTTP transport that calls `onBroken` when a response's body breaks off
 * (the server died, the connection dropped). The SDK reports that only as an error event and leaves
 * the request it answered waiting until its timeout; closing the session instead ends every call
 * in flight at once, each an unknown outcome, as a stdio server's death does.
 */
export function watchedFetch(onBroken: () => void): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (!response.body) return response;
    const reader = response.body.getReader();
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (err) {
          if (!cancelled) onBroken();
          controller.error(err);
          return;
        }
        // The transport may have let go of the body (it read what it needed) while this read waited.
        if (cancelled) return;
        if (chunk.done) controller.close();
        else controller.enqueue(chunk.value);
      },
      cancel(reason) {
        cancelled = true;
        return reader.cancel(reason);
      },
    });
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
