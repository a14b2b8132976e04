import { Client, Connection } from '@temporalio/client';
import { OpenAIAgentsPlugin } from '@temporalio/openai-agents';
import { OpenAIProvider } from '@openai/agents-openai';
import { serveDriver } from '../../lib/driver.js';
import { waitUntilPaused } from '../../lib/history-wait.js';
import { executionChain, roundTripsFromHistory } from '../../lib/round-trips.js';

// Names only: importing the workflow module would load workflow-only code into this process.
const TASK_QUEUE = 'bench-openai-agents';
const namespace = 'default';
const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
// The README registers the plugin on the client too, so model parameters travel with each run.
const client = new Client({
  connection,
  namespace,
  plugins: [new OpenAIAgentsPlugin({ modelProvider: new OpenAIProvider() })],
});

interface Run {
  input: string;
  workflowId: string;
  /** The run continues as new once approved: its chain starts here. */
  firstRunId: string;
  answer?: string;
}

serveDriver<Run>('temporal-openai-agents', {
  async startPaused(input) {
    const workflowId = `oa-${input}`;
    const { firstExecutionRunId } = await client.workflow.start('approvalWorkflow', {
      workflowId,
      taskQueue: TASK_QUEUE,
      args: [{ prompt: input }],
    });
    await waitUntilPaused(async (nextPageToken) => {
      const page = await client.workflowService.getWorkflowExecutionHistory({
        namespace,
        execution: { workflowId },
        waitNewEvent: true,
        nextPageToken,
      });
      return { events: page.history?.events ?? [], nextPageToken: page.nextPageToken };
    });
    return { input, workflowId, firstRunId: firstExecutionRunId };
  },
  async approve(run) {
    await client.workflow.getHandle(run.workflowId).signal('approve');
  },
  async finished(run) {
    run.answer = String(await client.workflow.getHandle(run.workflowId).result());
  },
  answer: async (run) => run.answer ?? '',
  inputOf: (run) => run.input,
  async roundTrips(run) {
    const history = async (runId: string) =>
      (await client.workflow.getHandle(run.workflowId, runId).fetchHistory()).events ?? [];
    return roundTripsFromHistory(await executionChain(history, run.firstRunId));
  },
});
