import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { mcpTools, type McpTools } from '../../mcp/index.js';
import type { ApprovalView } from '../../protocol/index.js';
import { tokens } from '../support/api-agents.js';
import { call, calls, say, type ChatCompletionRequest } from '../support/fake-model.js';
import { startStack, type Stack } from '../support/stack.js';
import {
  callsOfRun,
  decideAsAlice,
  runCalling as runCallingTool,
  ticketAgent,
} from './support/ticket-runs.js';
import { waitFor } from '../support/wait-for.js';
import { pendingOutcome, toolMessage } from '../support/unknown-restart.js';
import {
  callsReceived,
  killServerOf,
  receivedCalls,
  ticketFiles,
  TICKETS_SERVER,
  TSX_NODE_ARGS,
} from './support/tickets.js';

/**
 * An agent whose tools come from a real MCP server (the tickets server, a child process over stdio),
 * each under the policy the adopter's map gives it, run by the real worker, API and Temporal.
 */

const files = ticketFiles();
let tickets: McpTools;
let stack: Stack;

before(async () => {
  tickets = await mcpTools({
    server: {
      command: process.execPath,
      args: [...TSX_NODE_ARGS, TICKETS_SERVER],
      env: { TICKETS_LOG: files.log, TICKETS_CONFIG: files.config },
      name: 'tickets',
    },
    policies: {
      search_tickets: 'safe',
      close_ticket: { approvers: ['admin'], editableFields: ['id', 'reason'] },
      reopen_ticket: { when: 'auto' },
      attach_screenshot: { when: 'auto' },
      export_tickets: { when: 'auto' },
      sync_tickets: { when: 'auto' },
    },
    idempotent: ['sync_tickets'],
  });
  stack = await startStack({ agents: [ticketAgent(tickets)] });
});
after(async () => {
  await stack?.close();
  await tickets?.close();
});

const decide = (trackingId: string, body: unknown) => decideAsAlice(stack, trackingId, body);

const runCalling = (input: string, tool: string, args: Record<string, unknown>) =>
  runCallingTool(stack, input, tool, args);

const callsFor = (runId: string, tool: string) => callsOfRun(files.log, runId, tool);

test('an ungated MCP tool runs at once; the model sees the server schema and reads the structured result', async () => {
  let seen: ChatCompletionRequest | undefined;
  const runId = await stack.startRun(
    'tickets',
    'mcp: search',
    tokens.bob,
    (request) => {
      seen = request;
      return calls(call('search_tickets', { query: 'printer' }, 'c1'));
    },
    (request) => say(`tool said: ${request.messages.at(-1)?.content}`),
  );
  assert.equal(
    await toolMessage(stack, runId),
    JSON.stringify({ tickets: [{ id: 'T-1', title: 'Printer on fire (printer)', status: 'open' }] }),
  );
  assert.deepEqual((await stack.state(runId)).approvals, [], 'nobody was asked');
  const offered = seen?.tools?.find((tool) => tool.function.name === 'search_tickets');
  assert.deepEqual(offered?.function.parameters, {
    type: 'object',
    properties: { query: { type: 'string' } },
    required: ['query'],
  });
  const [received] = await callsReceived(files.log, 'search_tickets');
  assert.deepEqual(received!.args, { query: 'printer' });
  assert.equal(
    received!.meta?.['countersign/idempotency-key'],
    `${runId}/c1`,
    'the idempotency key in _meta',
  );
});

test('a gated MCP tool waits for a person, shows the server hints, and runs once approved', async () => {
  const runId = await runCalling('mcp: close approved', 'close_ticket', { id: 'T-1', reason: 'fixed' });
  const [approval] = await stack.waitForPending(runId);
  assert.equal(approval!.tool, 'close_ticket');
  assert.deepEqual(approval!.approvers, ['admin']);
  assert.match(
    approval!.description,
    /^close_ticket: Close a ticket for good\. \[the server says: destructive\]$/,
  );
  assert.deepEqual(callsFor(runId, 'close_ticket'), [], 'nothing runs before the approval');

  const approved = await decide(approval!.trackingId, { type: 'approve' });
  assert.equal(approved.status, 200, approved.text);
  assert.equal(await toolMessage(stack, runId), 'closed T-1: fixed');
  assert.equal(callsFor(runId, 'close_ticket').length, 1);
});

test('an edit is checked against the server schema: an invalid one is refused, a valid one runs', async () => {
  const runId = await runCalling('mcp: close edited', 'close_ticket', { id: 'T-1', reason: 'fixed' });
  const [approval] = await stack.waitForPending(runId);
  const schema = approval!.schema as { properties: Record<string, unknown> };
  assert.deepEqual(schema.properties.id, { type: 'string', pattern: '^T-\\d+$' });

  const invalid = await decide(approval!.trackingId, {
    type: 'edit',
    args: { id: 'ticket one', reason: '' },
  });
  assert.equal(invalid.status, 400, invalid.text);
  assert.equal(invalid.body.error.code, 'invalid_arguments');
  assert.deepEqual(
    invalid.body.error.fields.map((f: { path: string }) => f.path),
    ['/args/id', '/args/reason'],
  );
  const state = await stack.state(runId);
  assert.equal(state.pending.length, 1, 'still waiting');
  // Refused by the API, as a zod tool's edit is, before any signal: the run never saw it.
  assert.equal(state.events.filter((e) => e.type === 'decision.refused').length, 0);

  const edited = await decide(approval!.trackingId, {
    type: 'edit',
    args: { id: 'T-2', reason: 'duplicate' },
  });
  assert.equal(edited.status, 200, edited.text);
  // The model reads what the reviewer changed, then the server's result.
  assert.equal(
    await toolMessage(stack, runId),
    '(A human reviewer (alice) changed the arguments before this call ran: id from "T-1" to "T-2"; reason from "fixed" to "duplicate".) closed T-2: duplicate',
  );
  assert.deepEqual(
    callsFor(runId, 'close_ticket').map((c) => c.args),
    [{ id: 'T-2', reason: 'duplicate' }],
  );
});

test('a rejected MCP call never reaches the server, and the model is told', async () => {
  const runId = await runCalling('mcp: close rejected', 'close_ticket', { id: 'T-1', reason: 'fixed' });
  const [approval] = await stack.waitForPending(runId);
  const rejected = await decide(approval!.trackingId, {
    type: 'reject',
    message: 'the customer still needs it',
  });
  assert.equal(rejected.status, 200, rejected.text);
  assert.match(
    await toolMessage(stack, runId),
    /refused this call to close_ticket.*the customer still needs it/,
  );
  assert.deepEqual(callsFor(runId, 'close_ticket'), []);
});

test('a tool the policy map does not name needs a person', async () => {
  const runId = await runCalling('mcp: create unnamed', 'create_ticket', {
    title: 'Printer jam',
    priority: 'low',
  });
  const [approval] = await stack.waitForPending(runId);
  assert.equal(approval!.tool, 'create_ticket');
  assert.deepEqual(approval!.approvers, ['admin']);
  assert.match(approval!.description, /\[the server says: not destructive, idempotent\]/);
  const approved = await decide(approval!.trackingId, { type: 'approve' });
  assert.equal(approved.status, 200, approved.text);
  assert.match(await toolMessage(stack, runId), /^created T-\d+: Printer jam \(low\)$/);
});

test('an MCP error result is a failed call the model reads, not attempted again', async () => {
  const runId = await runCalling('mcp: reopen', 'reopen_ticket', { id: 'T-9' });
  assert.equal(await toolMessage(stack, runId), 'The tool reopen_ticket failed: ticket T-9 is not closed');
  assert.equal(callsFor(runId, 'reopen_ticket').length, 1);
});

test('content the model cannot read comes back as a note beside the text', async () => {
  const runId = await runCalling('mcp: screenshot', 'attach_screenshot', { id: 'T-3' });
  assert.equal(await toolMessage(stack, runId), 'attached to T-3\n[image (image/png), not shown]');
});

test('the server killed mid-call: an unknown outcome for a tool that does not dedupe', async () => {
  const runId = await runCalling('mcp: export killed', 'export_tickets', { format: 'csv' });
  const [received] = await callsReceived(files.log, 'export_tickets');
  await killServerOf(received!);
  // A person is asked, or (wrongly) the call is sent again.
  const asked = await waitFor(async () => {
    if (callsFor(runId, 'export_tickets').length > 1) return 'sent again';
    return (await stack.state(runId)).pending.some((a) => a.kind === 'outcome') ? 'asked' : undefined;
  }, 'a person to be asked what happened');
  assert.equal(asked, 'asked');
  const outcome: ApprovalView = await pendingOutcome(stack, runId);
  assert.equal(outcome.tool, 'export_tickets');
  assert.match(outcome.attempt!.reason, /went away before answering/);
  assert.equal(outcome.attempt!.progress?.step, 'call sent to MCP server tickets');

  const happened = await decide(outcome.trackingId, { type: 'respond', result: 'exported 3 tickets' });
  assert.equal(happened.status, 200, happened.text);
  assert.equal(await toolMessage(stack, runId), 'exported 3 tickets');
  assert.equal(callsFor(runId, 'export_tickets').length, 1, 'never repeated without a person');
});

test('the server killed mid-call: a tool marked idempotent is attempted again, with the same key', async () => {
  const runId = await runCalling('mcp: sync killed', 'sync_tickets', { upstream: 'jira' });
  const [first] = await callsReceived(files.log, 'sync_tickets');
  await killServerOf(first!);
  const state = await waitFor(async () => {
    const now = await stack.state(runId);
    return now.status === 'completed' || now.pending.length > 0 ? now : undefined;
  }, 'the run to complete, or to ask a person');
  assert.deepEqual(state.pending, [], 'nobody was asked');
  assert.equal(await toolMessage(stack, runId), 'synced to jira');
  const attempts = callsFor(runId, 'sync_tickets');
  assert.equal(attempts.length, 2);
  assert.notEqual(attempts[1]!.pid, first!.pid, 'the retry reached a new server process');
});

test('a tool the server no longer has (it changed since the run began) fails, saying so', async () => {
  const runId = await runCalling('mcp: close gone', 'close_ticket', { id: 'T-1', reason: 'fixed' });
  const [approval] = await stack.waitForPending(runId);
  // A new version of the server, without close_ticket, replaces the running one.
  writeFileSync(files.config, JSON.stringify({ without: ['close_ticket'] }));
  await killServerOf(receivedCalls(files.log).at(-1)!);
  const approved = await decide(approval!.trackingId, { type: 'approve' });
  assert.equal(approved.status, 200, approved.text);
  assert.match(
    await toolMessage(stack, runId),
    /^The tool close_ticket failed: the MCP server tickets no longer has a tool close_ticket/,
  );
  assert.deepEqual(callsFor(runId, 'close_ticket'), []);
});
