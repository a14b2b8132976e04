import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import proto from '@temporalio/proto';
import { mcpTools, type McpTools } from '../../mcp/index.js';
import { startStack, type Stack } from '../support/stack.js';
import {
  callsOfRun,
  decideAsAlice,
  runCalling as runCallingTool,
  ticketAgent,
} from './support/ticket-runs.js';
import { pendingOutcome, toolMessage } from '../support/unknown-restart.js';
import { callsReceived, startHttpTickets, ticketFiles, type HttpTickets } from './support/tickets.js';

/**
 * The same ticket system as a real MCP server over Streamable HTTP (a child process), which takes
 * only requests bearing the token the adopter configured.
 */

const History = proto.temporal.api.history.v1.History;
const files = ticketFiles();
const token = `mcp-token-${randomUUID()}`;
let server: HttpTickets;
let tickets: McpTools;
let stack: Stack;

before(async () => {
  server = await startHttpTickets({ TICKETS_LOG: files.log, TICKETS_TOKEN: token });
  tickets = await mcpTools({
    server: { url: server.url, headers: { authorization: `Bearer ${token}` }, name: 'tickets' },
    policies: {
      search_tickets: 'safe',
      close_ticket: { approvers: ['admin'] },
      reopen_ticket: { when: 'auto' },
      export_tickets: { when: 'auto' },
    },
  });
  stack = await startStack({ agents: [ticketAgent(tickets)] });
});
after(async () => {
  await stack?.close();
  await tickets?.close();
  await server?.stop();
});

const decide = (trackingId: string, body: unknown) => decideAsAlice(stack, trackingId, body);

const runCalling = (input: string, tool: string, args: Record<string, unknown>) =>
  runCallingTool(stack, input, tool, args);

const callsFor = (runId: string, tool: string) => callsOfRun(files.log, runId, tool);

test('an ungated tool runs at once; the token comes from configuration and stays out of the run', async () => {
  const runId = await runCalling('mcp http: search', 'search_tickets', { query: 'printer' });
  assert.match(await toolMessage(stack, runId), /Printer on fire \(printer\)/);
  const [received] = callsFor(runId, 'search_tickets');
  assert.equal(received?.authorization, `Bearer ${token}`);
  const history = await stack.client.workflow.getHandle(runId).fetchHistory();
  const bytes = Buffer.from(History.encode(History.fromObject(history)).finish());
  assert.ok(bytes.length > 1000, 'the history was read');
  assert.equal(bytes.includes(Buffer.from(token)), false, 'the history holds the token');
});

test('a gated call waits through a worker restart and runs once approved', async () => {
  const runId = await runCalling('mcp http: close', 'close_ticket', { id: 'T-4', reason: 'fixed' });
  const [approval] = await stack.waitForPending(runId);
  await stack.stopWorker();
  await stack.startWorker();
  const approved = await decide(approval!.trackingId, { type: 'approve' });
  assert.equal(approved.status, 200, approved.text);
  assert.equal(await toolMessage(stack, runId), 'closed T-4: fixed');
  assert.equal(callsFor(runId, 'close_ticket').length, 1);
});

test('an MCP error result reaches the model', async () => {
  const runId = await runCalling('mcp http: reopen', 'reopen_ticket', { id: 'T-5' });
  assert.equal(await toolMessage(stack, runId), 'The tool reopen_ticket failed: ticket T-5 is not closed');
});

// Last: it kills the server.
test('the server killed mid-call: the answer stream breaks off, and the outcome is unknown at once', async () => {
  const runId = await runCalling('mcp http: export killed', 'export_tickets', { format: 'csv' });
  await callsReceived(files.log, 'export_tickets');
  await server.stop();
  const outcome = await pendingOutcome(stack, runId);
  assert.match(outcome.attempt!.reason, /went away before answering/);
  const failed = await decide(outcome.trackingId, { type: 'reject', message: 'nothing was exported' });
  assert.equal(failed.status, 200, failed.text);
  assert.match(await toolMessage(stack, runId), /said it did not complete: nothing was exported/);
  assert.equal(callsFor(runId, 'export_tickets').length, 1);
});
