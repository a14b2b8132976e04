import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { registerSearchAttributes, sendDecision, startRun } from '../../client/index.js';
import { SEARCH_ATTRIBUTES, trackingIdFor, WAITING_FILTER, type RunOutput } from '../../protocol/index.js';
import { pool } from '../../test/faults/support/pool.js';
import { serveDriver } from '../lib/driver.js';
import { waitUntilPaused } from '../lib/history-wait.js';
import { createAgents } from './agents.js';
import { runRecords } from './run-records.js';

const namespace = 'default';
const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
const client = new Client({ connection, namespace });
// With no API process in this system, the client registers the inbox's search attributes itself.
await registerSearchAttributes(connection, namespace);
const [agent] = createAgents();
const records = runRecords(client);

interface Run {
  input: string;
  runId: string;
  output?: RunOutput;
}

const start = async (input: string): Promise<Run> => ({
  input,
  ...(await startRun(client, { agent: agent!, input })),
});

serveDriver<Run>('countersign-signal', {
  async startPaused(input) {
    const run = await start(input);
    await waitUntilPaused(async (nextPageToken) => {
      const page = await client.workflowService.getWorkflowExecutionHistory({
        namespace,
        execution: { workflowId: run.runId },
        waitNewEvent: true,
        nextPageToken,
      });
      return { events: page.history?.events ?? [], nextPageToken: page.nextPageToken };
    }, 'requestApproval');
    return run;
  },
  async startManyPaused(inputs, inFlight) {
    // Lists lag behind writes on the Temporal server: a run of an earlier batch can still show as
    // pending for a moment after it finished. Only runs started from now on are counted.
    const since = new Date().toISOString();
    const runs = await pool(inputs, inFlight, start);
    // The inbox's own filter, counted instead of listed.
    const query = `${SEARCH_ATTRIBUTES.agent.name} = '${agent!.name}' AND ${WAITING_FILTER} AND StartTime >= '${since}'`;
    while ((await client.workflow.count(query)).count < runs.length) await sleep(100);
    return runs;
  },
  async approve(run) {
    // The first approval of a run is `<runId>.1`: tracking ids route by themselves.
    await sendDecision(
      client,
      {
        trackingId: trackingIdFor(run.runId, 1),
        decision: { type: 'approve' },
        approver: { id: 'bench', roles: ['admin'] },
        channel: 'api',
        requestId: randomUUID(),
        // The first revision: nothing edits a proposal in the bench.
        revision: 1,
      },
      { waitMs: 0 },
    );
  },
  async finished(run) {
    run.output = (await client.workflow.getHandle(run.runId).result()) as RunOutput;
  },
  answer: async (run) => run.output?.output ?? '',
  inputOf: (run) => run.input,
  roundTrips: (run) => records.roundTrips(run.runId),
  runBytes: (run) => records.runBytes(run.runId),
});
