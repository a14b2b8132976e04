// The API service of a team that splits its worker from its API: it installs no @temporalio/worker,
// connects a Temporal client to TEMPORAL_ADDRESS, mounts the router in its own express app behind
// its own login, and has a run started, decided and finished through it while the worker service
// runs the agent.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { connectionOptions, loadTemporalConfig, type RunState } from 'countersign';
import { buildApp } from './app.js';
import { call, signIn, until } from './http.js';

const config = loadTemporalConfig(process.env);
assert.ok(config.address, 'TEMPORAL_ADDRESS names the cluster');
const connection = await Connection.connect(connectionOptions({ ...config, address: config.address }));
const client = new Client({ connection, namespace: config.namespace });
const server = createServer().listen(0, '127.0.0.1');
await once(server, 'listening');
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const base = `${origin}/approvals`;
server.on('request', buildApp(client, 'adoption-split', base));
try {
  const sam = await signIn(origin, 'sam');
  const lee = await signIn(origin, 'lee');
  const started = await call(base, sam, 'POST', '/api/runs', {
    agent: 'refunds',
    input: 'Refund order A-2001: $25',
  });
  assert.equal(started.status, 201, JSON.stringify(started.body));
  const runId: string = started.body.runId;
  const pending = await until('the approval', async () => {
    const run = (await call(base, sam, 'GET', `/api/runs/${runId}`)).body as RunState;
    return run.pending[0];
  });
  const shown = await call(base, lee, 'GET', `/api/approvals/${pending.trackingId}`);
  const decided = await call(
    base,
    lee,
    'POST',
    `/api/approvals/${pending.trackingId}/decision`,
    { type: 'approve' },
    { 'if-match': shown.headers.get('etag')! },
  );
  assert.equal(decided.status, 200, JSON.stringify(decided.body));
  const finished = await until(
    'the run to finish',
    async () => {
      const run = (await call(base, sam, 'GET', `/api/runs/${runId}`)).body as RunState;
      return run.status === 'completed' ? run : undefined;
    },
    3_000,
  );
  console.log(JSON.stringify({ runId, output: finished.output, by: finished.approvals[0]?.outcome?.by }));
} finally {
  server.close();
  server.closeAllConnections();
  await connection.close();
}
