import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { Running } from './running.js';

/**
 * `npm start`'s helpdesk agent: its tools come from the demo's ticket system, a real MCP server
 * (demo/mcp/ticket-server.ts) the demo starts over stdio, with the offline demo model.
 */

const dataDir = mkdtempSync(path.join(tmpdir(), 'countersign-helpdesk-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

/** The ticket servers this process runs now, by pid. */
async function ticketServers(): Promise<number[]> {
  const ps = spawn('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)]);
  let out = '';
  ps.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise((resolve) => ps.on('close', resolve));
  return out
    .split('\n')
    .filter((line) => line.includes(path.join('demo', 'mcp', 'ticket-server.ts')))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

function ticket(id: string): Record<string, unknown> | undefined {
  const tickets = JSON.parse(readFileSync(path.join(dataDir, 'demo', 'tickets.json'), 'utf8')) as {
    id: string;
  }[];
  return tickets.find((t) => t.id === id);
}

test('closing a ticket waits for approval while reading the queue does not; approved, the server closes it', async () => {
  const cs = await Running.start(dataDir);
  try {
    assert.equal((await ticketServers()).length, 1, 'the demo runs its ticket MCP server as a child');
    assert.match(cs.countersign.banner, /Agents: .*\bhelpdesk\b/);
    assert.match(cs.countersign.banner, /Helpdesk: .*MCP server over stdio/);

    const closing = await cs.startRun('helpdesk', 'Close ticket T-1002 as resolved');
    const approval = await cs.pendingOne(closing);
    assert.equal(approval.tool, 'close_ticket');
    assert.deepEqual(approval.args, { id: 'T-1002', resolution: 'resolved' });
    assert.match(approval.description, /^close_ticket: .*\[the server says: destructive, idempotent\]$/);

    // The read-only tool runs at once, on the same server: the ticket is still open.
    const listing = await cs.startRun('helpdesk', 'List the open tickets');
    const listed = await cs.finished(listing);
    assert.equal(listed.approvals.length, 0);
    assert.match(
      listed.output!,
      /\| T-1002 \| Cannot sign in to the VPN since the password reset \| open \|/,
    );

    await cs.settle(approval.trackingId, { type: 'approve' });
    assert.match((await cs.finished(closing)).output!, /Closed T-1002 as resolved\.$/);
    assert.equal(ticket('T-1002')?.status, 'closed');
  } finally {
    await cs.stop();
  }
  assert.deepEqual(await ticketServers(), [], 'stopping ends the ticket server');
});

test('a restart starts a new ticket server, which has the same tickets', async () => {
  assert.equal(ticket('T-1002')?.status, 'closed');
  const cs = await Running.start(dataDir);
  try {
    const run = await cs.finished(await cs.startRun('helpdesk', 'Show the closed tickets'));
    assert.match(run.output!, /\| T-1002 \| .* \| closed \|/);
    assert.doesNotMatch(run.output!, /T-1001/);
  } finally {
    await cs.stop();
  }
  assert.deepEqual(await ticketServers(), []);
});
