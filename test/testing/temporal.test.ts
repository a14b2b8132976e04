import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Connection } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { startRun } from '../../client/index.js';
import { RunOutput } from '../../protocol/index.js';
import { FakeModel, call, calls, createTestTemporal, say, type TestTemporal } from '../../testing/index.js';
import { bundleWorkflows, createWorker } from '../../worker/index.js';
import { installTestRuntime } from '../support/worker.js';
import { approve, pendingApproval, refundsAgent, waitFor } from './fixtures.js';

// createTestTemporal as a team uses it: a Countersign worker for its own agent on the environment,
// the scripted fake model in the model's place, and runs whose search attributes the inbox lists by.

let fake: FakeModel;
let bundle: { code: string };

before(async () => {
  installTestRuntime();
  fake = await FakeModel.start();
  bundle = await bundleWorkflows();
});
after(() => fake.close());

/** A worker for `agent` on the environment, on a task queue of its own. */
async function runWorker(temporal: TestTemporal, agent: ReturnType<typeof refundsAgent>) {
  const taskQueue = `testing-${randomUUID()}`;
  const worker: Worker = await createWorker({
    connection: temporal.nativeConnection,
    namespace: temporal.namespace,
    taskQueue,
    agents: [agent],
    model: { baseUrl: fake.url, apiKey: 'test' },
    workflowBundle: bundle,
    workerOptions: { shutdownGraceTime: '1 second' },
  });
  const running = worker.run();
  return {
    taskQueue,
    async stop() {
      worker.shutdown();
      await running;
    },
  };
}

/** The run's search attributes as `describe` shows them. */
async function attributes(temporal: TestTemporal, runId: string): Promise<Record<string, unknown[]>> {
  const description = await temporal.client.workflow.getHandle(runId).describe();
  return description.searchAttributes as Record<string, unknown[]>;
}

describe('createTestTemporal: the dev server', () => {
  let temporal: TestTemporal;
  before(async () => {
    // A library function reads nothing from the environment: these would break a call that did.
    const saved = { cli: process.env.TEMPORAL_CLI_PATH, address: process.env.TEMPORAL_ADDRESS };
    process.env.TEMPORAL_CLI_PATH = '/nonexistent/temporal';
    process.env.TEMPORAL_ADDRESS = '127.0.0.1:1';
    try {
      temporal = await createTestTemporal();
    } finally {
      for (const [key, value] of [
        ['TEMPORAL_CLI_PATH', saved.cli],
        ['TEMPORAL_ADDRESS', saved.address],
      ] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });
  after(() => temporal?.teardown());

  it('starts its own dev server, with the search attributes a run lists by', async () => {
    assert.equal(temporal.timeSkipping, false);
    assert.notEqual(temporal.address, '127.0.0.1:1');
    assert.equal(temporal.namespace, 'default');

    const refunded: { orderId: string; amount: number }[] = [];
    const agent = refundsAgent(refunded);
    const worker = await runWorker(temporal, agent);
    try {
      const input = `Refund order A-1 in full [${randomUUID().slice(0, 8)}]`;
      fake.script(input, calls(call('refund_order', { orderId: 'A-1', amount: 2500 })), say('Refunded.'));
      const { runId } = await startRun(temporal.client, { agent, input, taskQueue: worker.taskQueue });
      await pendingApproval(temporal.client, runId);

      // The inbox's list query finds it once the list catches up with the write.
      const inbox = `CountersignPending > 0 AND CountersignAgent = '${agent.name}' AND CountersignPendingTools = 'refund_order' AND CountersignPendingRoles = 'finance' AND CountersignStatus = 'waiting'`;
      const listed = await waitFor(async () => {
        for await (const run of temporal.client.workflow.list({ query: inbox }))
          if (run.workflowId === runId) return run;
        return undefined;
      }, 'the run in the inbox list');
      assert.deepEqual(listed.searchAttributes.CountersignPending, [1]);
      assert.deepEqual((await attributes(temporal, runId)).CountersignPendingTools, ['refund_order']);

      await approve(temporal.client, runId);
      const output = RunOutput.parse(await temporal.client.workflow.getHandle(runId).result());
      assert.equal(output.status, 'completed');
      assert.deepEqual(refunded, [{ orderId: 'A-1', amount: 2500 }]);
      await waitFor(
        async () =>
          (
            await temporal.client.workflow.count(
              `CountersignStatus = 'completed' AND CountersignAgent = '${agent.name}'`,
            )
          ).count === 1
            ? true
            : undefined,
        'the completed run in the list',
      );
    } finally {
      await worker.stop();
    }
  });

  it('teardown stops the server it started', async () => {
    const other = await createTestTemporal({ env: process.env });
    const { address } = other;
    await other.teardown();
    await other.teardown(); // twice is fine
    await assert.rejects(Connection.connect({ address, connectTimeout: 2_000 }));
  });

  it('names the binary it could not run, and refuses options the server it starts cannot take', async () => {
    await assert.rejects(
      createTestTemporal({ executable: '/nonexistent/temporal' }),
      /\/nonexistent\/temporal/,
    );
    await assert.rejects(
      createTestTemporal({ timeSkipping: true, dynamicConfig: { 'limit.blobSize.error': 1 } }),
      /dev server it starts only/,
    );
  });
});

describe('createTestTemporal: the time-skipping server', () => {
  let temporal: TestTemporal;
  before(async () => {
    temporal = await createTestTemporal({ timeSkipping: true, env: process.env });
  });
  after(() => temporal?.teardown());

  it('has the search attributes, and a three-day deadline passes in no time', async () => {
    assert.equal(temporal.timeSkipping, true);
    const refunded: { orderId: string; amount: number }[] = [];
    const agent = refundsAgent(refunded);
    const worker = await runWorker(temporal, agent);
    try {
      const input = `Refund order B-2 in full [${randomUUID().slice(0, 8)}]`;
      fake.script(
        input,
        calls(call('refund_order', { orderId: 'B-2', amount: 5000 })),
        say('I could not refund it.'),
      );
      const { runId } = await startRun(temporal.client, { agent, input, taskQueue: worker.taskQueue });
      await pendingApproval(temporal.client, runId);
      // That server has no list queries; describe shows what the run set.
      const set = await waitFor(async () => {
        const found = await attributes(temporal, runId);
        return found.CountersignPending?.[0] === 1 ? found : undefined;
      }, 'the pending count in the search attributes');
      assert.deepEqual(set.CountersignAgent, [agent.name]);
      assert.deepEqual(set.CountersignPendingRoles, ['finance']);

      const before = await temporal.env.currentTimeMs();
      await temporal.env.sleep('4 days');
      // Awaiting the result skips time on this server too.
      const output = RunOutput.parse(await temporal.client.workflow.getHandle(runId).result());
      assert.ok(
        (await temporal.env.currentTimeMs()) - before >= 3 * 86_400_000,
        'the clock moved past the deadline',
      );
      assert.equal(output.status, 'completed');
      assert.deepEqual(refunded, [], 'the timed-out approval was rejected: nothing refunded');
      assert.deepEqual((await attributes(temporal, runId)).CountersignPending, [0]);
    } finally {
      await worker.stop();
    }
  });
});
