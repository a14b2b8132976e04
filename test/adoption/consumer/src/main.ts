// The adoption scenario, run by test/adoption/adoption.test.ts in a project that sees only the
// packed tarball: a worker on a real Temporal dev server, the team's express app with its own
// sessions, a run started over REST and approved by the test in the mounted inbox (this prints
// where, then waits for the run to finish), and the run's history replayed (and failing against a
// changed workflow).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { ApprovalView, RunState } from 'countersign';
import {
  FakeModel,
  call as modelCall,
  calls,
  createTestTemporal,
  replayHistories,
  say,
} from 'countersign/testing';
import { createWorker } from 'countersign/worker';
import { executed, refunds } from './agent.js';
import { buildApp, hostRequests } from './app.js';
import { call, signIn as signInAt, until } from './http.js';

Runtime.install({ logger: new DefaultLogger('WARN') });
const TASK_QUEUE = 'adoption';
const temporal = await createTestTemporal({ env: process.env });
const model = await FakeModel.start();
const input = 'Refund order A-1042: $40';
model.script(
  input,
  calls(modelCall('refund', { order: 'A-1042', amount: 40 })),
  say('Refunded $40 on A-1042.'),
);

const worker = await createWorker({
  connection: temporal.nativeConnection,
  namespace: temporal.namespace,
  taskQueue: TASK_QUEUE,
  agents: [refunds],
  model: { baseUrl: model.url, apiKey: 'test' },
});
// Listening first: the router's public URL names the port it gets.
const server = createServer().listen(0, '127.0.0.1');
await once(server, 'listening');
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const base = `${origin}/approvals`;
server.on('request', buildApp(temporal.client, TASK_QUEUE, base));

const signIn = (user: string) => signInAt(origin, user);
const as = (cookie: string | undefined, method: string, path: string, body?: unknown, headers = {}) =>
  call(base, cookie, method, path, body, headers);

try {
  await worker.runUntil(async () => {
    assert.equal(
      (await as(undefined, 'GET', '/api/me')).status,
      401,
      'the hook refuses who it does not know',
    );
    // The inbox under the service's own path: its page asks for everything relative to itself.
    const bare = await fetch(base, { redirect: 'manual' });
    assert.equal(bare.status, 308);
    assert.equal(bare.headers.get('location'), '/approvals/');
    assert.match(await (await fetch(`${base}/`)).text(), /<title>Countersign inbox<\/title>/);
    const sam = await signIn('sam');
    const lee = await signIn('lee');
    const me = await as(lee, 'GET', '/api/me');
    assert.deepEqual(me.body.approver.roles, ['support-lead']);

    const started = await as(sam, 'POST', '/api/runs', { agent: 'refunds', input });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    const runId: string = started.body.runId;
    const pending = await until('the approval', async () => {
      const run = (await as(sam, 'GET', `/api/runs/${runId}`)).body as RunState;
      return run.pending[0];
    });
    assert.equal(pending.description, 'Refund $40 on order A-1042');

    const shown = await as(lee, 'GET', `/api/approvals/${pending.trackingId}`);
    const etag = shown.headers.get('etag')!;
    // Sam asked and holds no role that decides: refused, nothing ran.
    const self = await as(
      sam,
      'POST',
      `/api/approvals/${pending.trackingId}/decision`,
      { type: 'approve' },
      { 'if-match': etag },
    );
    assert.equal(self.status, 403, JSON.stringify(self.body));

    // Lee approves in the inbox, signed in by the service's own login: the test drives the browser
    // (or, on the other Node versions and SDK ends, decides over REST with the same session).
    console.log(
      JSON.stringify({ login: `${origin}/login`, inbox: `${base}/`, trackingId: pending.trackingId }),
    );
    const finished = await until(
      'the run to finish',
      async () => {
        const run = (await as(sam, 'GET', `/api/runs/${runId}`)).body as RunState;
        return run.status === 'completed' ? run : undefined;
      },
      3_000,
    );
    assert.equal(finished.output, 'Refunded $40 on A-1042.');
    assert.deepEqual(executed, [{ order: 'A-1042', amount: 40 }]);
    const settled = finished.approvals[0] as ApprovalView;
    assert.deepEqual(settled.outcome?.by, ['lee@example.com']);
    assert.deepEqual(
      settled.approvals.map((signoff) => [signoff.approver, signoff.channel]),
      [['lee@example.com', process.env.DECIDED_VIA ?? 'inbox']],
    );

    // The run's history replays against the installed workflow code, and fails against a changed one.
    const history = await temporal.client.workflow.getHandle(runId).fetchHistory();
    const recorded = { workflowId: runId, history };
    const [replayed] = await replayHistories([recorded]);
    assert.equal(replayed!.ok, true);
    const [altered] = await replayHistories([recorded], {
      workflowsPath: fileURLToPath(new URL('./altered-workflows.js', import.meta.url)),
      throwOnFailure: false,
    });
    assert.equal(altered!.ok, false, 'a changed workflow must fail the replay');
    console.log(
      JSON.stringify({ adopted: true, runId, executed, replay: 'ok', altered: 'failed', hostRequests }),
    );
  });
} finally {
  server.close();
  // The inbox's event stream stays open as long as its page does.
  server.closeAllConnections();
  await model.close();
  await temporal.teardown();
}
