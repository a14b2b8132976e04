import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toToolSpec } from '../../define/index.js';
import { mcpTools, type McpServerConfig } from '../../mcp/index.js';
import { TICKETS_SERVER, TSX_NODE_ARGS } from './support/tickets.js';

/** How `mcpTools` reads its options, against the real tickets server over stdio (no Temporal). */

const server: McpServerConfig = { command: process.execPath, args: [...TSX_NODE_ARGS, TICKETS_SERVER] };

test('tools, prefix and a default decided by the server hints, never looser than asked', async () => {
  const tickets = await mcpTools({
    server,
    tools: ['search_tickets', 'close_ticket', 'create_ticket'],
    prefix: 'tickets_',
    policies: { create_ticket: { when: 'auto' } },
    // Stricter for what the server does not call read-only; its hints make nothing safe.
    default: (tool) =>
      tool.annotations.readOnlyHint
        ? { approvers: ['support'] }
        : { approvers: ['ops'], requiredApprovals: 2 },
  });
  try {
    const specs = tickets.tools.map(toToolSpec);
    assert.deepEqual(
      specs.map((spec) => spec.name),
      ['tickets_search_tickets', 'tickets_create_ticket', 'tickets_close_ticket'],
    );
    const [search, create, close] = specs;
    assert.equal(search!.safe, false);
    assert.deepEqual(search!.approval?.approvers, ['support']);
    assert.equal(search!.approval?.when, 'approve');
    assert.equal(create!.approval?.when, 'auto');
    assert.equal(create!.idempotent, false, 'idempotentHint counts for nothing');
    assert.deepEqual([close!.approval?.approvers, close!.approval?.requiredApprovals], [['ops'], 2]);
  } finally {
    await tickets.close();
  }
});

test('a policy that does not parse fails where it is written, naming the tool', async () => {
  await assert.rejects(
    mcpTools({ server, policies: { close_ticket: { approvers: [] } } }),
    /MCP server node, tool close_ticket: policy \/approvers: /,
  );
  await assert.rejects(mcpTools({ server: { url: 'not a url' } }), /^Error: mcpTools: \/server\/url: /);
});
