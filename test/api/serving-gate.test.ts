import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { servingGate } from 'countersign/api';

async function serve(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A GET whose body is read to its end, so a stream the server ends resolves and one it cuts rejects. */
function get(
  url: string,
  accept = '*/*',
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { headers: { accept } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

test('a gate answers 503 with Retry-After and a JSON body until opened, then serves', async () => {
  const gate = servingGate({ retryAfterSeconds: 3 });
  const server = createServer(gate.listener);
  const url = await serve(server);
  try {
    const early = await get(`${url}/api/runs`);
    assert.equal(early.status, 503);
    assert.equal(early.headers['retry-after'], '3');
    assert.deepEqual(JSON.parse(early.body), {
      error: { code: 'starting', message: 'Countersign is starting; try again shortly' },
    });

    gate.open((_req, res) => res.end('served'));
    const ready = await get(`${url}/api/runs`);
    assert.deepEqual([ready.status, ready.body], [200, 'served']);
  } finally {
    server.close();
    server.closeAllConnections();
  }
});

test('closing: requests in flight are answered, streams end cleanly, new requests get 503', async () => {
  const gate = servingGate();
  const server = createServer(gate.listener);
  const url = await serve(server);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let slowStarted!: () => void;
  const slowArrived = new Promise<void>((resolve) => (slowStarted = resolve));
  let streamStarted!: () => void;
  const streamOpen = new Promise<void>((resolve) => (streamStarted = resolve));
  gate.open((req, res) => {
    if (req.url === '/slow') {
      slowStarted();
      void released.then(() => res.end('finished'));
    } else if (req.url === '/events') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('event: live\ndata: {}\n\n');
      streamStarted();
    } else res.end('quick');
  });
  try {
    const slow = get(`${url}/slow`);
    const stream = get(`${url}/events`, 'text/event-stream');
    await Promise.all([slowArrived, streamOpen]);

    const closed = gate.close(60_000);
    let closeResolved = false;
    void closed.then(() => (closeResolved = true));

    // The stream ends as a stream should, with what it had sent, rather than being cut.
    const streamed = await stream;
    assert.deepEqual([streamed.status, streamed.body], [200, 'event: live\ndata: {}\n\n']);
    const late = await get(`${url}/quick`);
    assert.equal(late.status, 503);
    assert.equal(late.headers.connection, 'close');
    assert.equal(JSON.parse(late.body).error.code, 'shutting_down');
    assert.equal(closeResolved, false, 'close waits for the request in flight');

    release();
    const answered = await slow;
    assert.deepEqual([answered.status, answered.body], [200, 'finished']);
    await closed;
    assert.throws(() => gate.open(() => undefined), /does not open again/);
  } finally {
    server.close();
    server.closeAllConnections();
  }
});

test('closing gives up on a request that outlasts the grace period', async () => {
  const gate = servingGate();
  const server = createServer(gate.listener);
  const url = await serve(server);
  let arrived!: () => void;
  const hanging = new Promise<void>((resolve) => (arrived = resolve));
  gate.open(() => arrived());
  try {
    const never = get(`${url}/hang`).catch((err: Error) => err);
    await hanging;
    await gate.close(50);
    server.closeAllConnections();
    assert.ok((await never) instanceof Error, 'the connection was closed, not left open');
  } finally {
    server.close();
  }
});
