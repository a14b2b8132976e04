// Slack (issue 43): the messages follow the approval. However it is decided (the inbox, REST...),
// edited, escalated, expired or cancelled with its run, every card posted for it is updated with
// chat.update to say what happened, by whom and through which channel; a Slack outage only delays it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../define/index.js';
import { call, calls, say } from '../support/fake-model.js';
import { apiTestAgents, tokens, toolRuns } from '../support/api-agents.js';
import { waitFor } from '../support/wait-for.js';
import type { SlackCall } from './fake-slack.js';
import { CHANNEL, startSlackStack, textOf, type SlackStack } from './slack-stack.js';

/** Waits two seconds for an admin, then two for a treasurer, then expires. */
const wire = defineTool({
  name: 'wire',
  description: 'Wire money abroad.',
  parameters: z.object({ to: z.string(), amount: z.number().positive() }),
  approval: {
    decisions: ['approve', 'reject'],
    approvers: ['admin'],
    deadlineSeconds: 2,
    onTimeout: { action: 'escalate', approvers: ['treasurer'], deadlineSeconds: 2 },
  },
  async execute(args, context) {
    toolRuns.push({ runId: context.runId, tool: 'wire', args });
    return { wired: args.amount };
  },
});
const abroad = defineAgent({
  name: 'abroad',
  description: 'Wires money abroad.',
  instructions: 'You wire money.',
  tools: [wire],
});

let s: SlackStack;
before(async () => {
  s = await startSlackStack({ agents: [...apiTestAgents, abroad] });
});
after(() => s?.close());

type Block = { type: string; elements?: { action_id?: string }[] };

const actionsOf = (call: SlackCall) =>
  (call.args.blocks as Block[])
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements ?? [])
    .map((e) => e.action_id);

/** The message a card became: its channel and timestamp, as Slack answered the post. */
const idOf = (card: SlackCall) => `${String(card.args.channel)}/${String(card.answer?.ts)}`;

/** The updates Slack took for this card (chat.update answered ok), in order. */
const updatesOf = (card: SlackCall) =>
  s.slack.calls.filter(
    (c) =>
      c.method === 'chat.update' && c.ok && `${String(c.args.channel)}/${String(c.args.ts)}` === idOf(card),
  );

/** Waits until every card has taken `count` updates, and returns each card's last. */
async function updated(cards: SlackCall[], count = 1): Promise<SlackCall[]> {
  return waitFor(async () => {
    const last = cards.map((card) => updatesOf(card)[count - 1]);
    return last.every(Boolean) ? (last as SlackCall[]) : undefined;
  }, `${cards.length} card(s) updated ${count} time(s)`);
}

/** The approval's cards, once `count` of them went out (each answered ok). */
async function posted(trackingId: string, count: number): Promise<SlackCall[]> {
  return waitFor(async () => {
    const ok = s.cards(trackingId).filter((c) => c.ok);
    return ok.length >= count ? ok : undefined;
  }, `${count} cards for ${trackingId}`);
}

async function gated(agent: string, input: string, tool: string, args: Record<string, unknown>) {
  const runId = await s.stack.startRun(agent, input, tokens.victor, calls(call(tool, args)), say('Done.'));
  const [pending] = await s.stack.waitForPending(runId);
  return { runId, trackingId: pending!.trackingId };
}

function decide(trackingId: string, token: string, body: unknown, channel = 'api') {
  return s.stack.http('POST', `/api/approvals/${trackingId}/decision`, {
    token,
    body,
    headers: { 'x-countersign-channel': channel },
  });
}

test('a decision in the inbox updates every card posted for it: how, by whom, through which channel', async () => {
  const { runId, trackingId } = await gated('bank', 'follow: inbox approve', 'transfer', {
    from: 'ops',
    to: 'acme',
    amount: 1500,
  });
  // The channel, and the DMs of alice and bob.
  const cards = await posted(trackingId, 3);
  assert.deepEqual(cards.map((c) => c.args.channel).sort(), [CHANNEL, 'D-U0ALICE', 'D-U0BOB']);

  const answer = await decide(trackingId, tokens.alice, { type: 'approve' }, 'inbox');
  assert.equal(answer.status, 200, answer.text);
  for (const update of await updated(cards)) {
    const text = textOf(update);
    assert.match(text, /\*Approved\* by alice \(inbox\)/);
    assert.match(String(update.args.text), /^Approved: /);
    assert.deepEqual(actionsOf(update), ['countersign_inbox'], 'no button left that decides');
  }
  assert.equal((await s.stack.result(runId)).status, 'completed');
  // Each card was updated once.
  for (const card of cards) assert.equal(updatesOf(card).length, 1);
});

test('an edit replaces the old cards’ buttons, the new card shows its diff, and the end updates them all', async () => {
  // A grant needs two: alice's edit signs revision 2, bob's approval completes it.
  const { runId, trackingId } = await gated('treasury', 'follow: edit', 'grant', {
    supplier: 'acme',
    amount: 5000,
  });
  const first = await posted(trackingId, 3);
  const edited = await decide(trackingId, tokens.alice, {
    type: 'edit',
    args: { supplier: 'acme', amount: 4000 },
  });
  assert.equal(edited.status, 200, edited.text);

  for (const update of await updated(first)) {
    const text = textOf(update);
    assert.match(text, /\*Edited\* by alice \(api\)/);
    assert.match(text, /revision 2 follows in a new message/);
    assert.match(text, /\/amount: 5000 → 4000/);
    assert.match(text, /"amount": 5000/, 'the card still shows what it proposed');
    assert.deepEqual(actionsOf(update), ['countersign_inbox']);
  }
  // Revision 2 goes to the channel and to bob (alice signed it), with what changed from what.
  const second = await waitFor(async () => {
    const now = s.cards(trackingId).filter((c) => c.ok && !first.includes(c));
    return now.length >= 2 ? now : undefined;
  }, 'the cards of revision 2');
  assert.deepEqual(second.map((c) => c.args.channel).sort(), [CHANNEL, 'D-U0BOB']);
  for (const card of second) {
    const text = textOf(card);
    assert.match(text, /\*Edited\* by alice \(api\): revision 1 changed as follows/);
    assert.match(text, /\/amount: 5000 → 4000/);
    assert.ok(actionsOf(card).includes('countersign_approve'));
  }

  const approved = await decide(trackingId, tokens.bob, { type: 'approve' });
  assert.equal(approved.status, 200, approved.text);
  const ends = [...(await updated(first, 2)), ...(await updated(second))];
  for (const update of ends) {
    assert.match(textOf(update), /\*Approved with edits\* by alice \(api\), bob \(api\)/);
    assert.deepEqual(actionsOf(update), ['countersign_inbox']);
  }
  assert.equal((await s.stack.result(runId)).status, 'completed');
});

test('an escalation replaces the cards, and the expiry updates every one of them', async () => {
  const { runId, trackingId } = await gated('abroad', 'follow: expiry', 'wire', { to: 'zeta', amount: 90 });
  // For admins: the channel and alice.
  const first = await posted(trackingId, 2);
  assert.deepEqual(first.map((c) => c.args.channel).sort(), [CHANNEL, 'D-U0ALICE']);
  for (const update of await updated(first)) {
    assert.match(
      textOf(update),
      /\*Escalated\*, .*nobody decided before the deadline, and it is now for treasurer/,
    );
    assert.deepEqual(actionsOf(update), ['countersign_inbox']);
  }
  const second = await waitFor(async () => {
    const now = s.cards(trackingId).filter((c) => c.ok && !first.includes(c));
    return now.length >= 2 ? now : undefined;
  }, 'the cards of the escalation');
  assert.deepEqual(second.map((c) => c.args.channel).sort(), [CHANNEL, 'D-U0BOB']);

  const output = await s.stack.result(runId);
  assert.equal(output.status, 'completed');
  const ends = [...(await updated(first, 2)), ...(await updated(second))];
  for (const update of ends) {
    assert.match(textOf(update), /\*Expired\*/);
    assert.match(textOf(update), /no decision before the deadline/);
  }
  assert.equal(toolRuns.filter((r) => r.runId === runId).length, 0);
});

test('cancelling the run updates its cards: cancelled, by whom, through which channel', async () => {
  const { runId, trackingId } = await gated('ops', 'follow: cancel', 'deploy', {
    service: 'web',
    version: '3.0.0',
  });
  // alice is the only admin: the channel and her DM.
  const cards = await posted(trackingId, 2);
  const cancel = await s.stack.http('POST', `/api/runs/${runId}/cancel`, { token: tokens.victor });
  assert.equal(cancel.status, 202, cancel.text);
  assert.equal((await s.stack.result(runId)).status, 'cancelled');
  // The run ended only once its cards said so.
  for (const card of cards) assert.equal(updatesOf(card).length, 1);
  for (const update of await updated(cards)) {
    assert.match(textOf(update), /\*Cancelled\* by victor \(api\)/);
    assert.deepEqual(actionsOf(update), ['countersign_inbox']);
  }
});

test('Slack failing during the update changes nothing for the run: the cards are updated once it answers', async () => {
  const { runId, trackingId } = await gated('bank', 'follow: outage', 'transfer', {
    from: 'ops',
    to: 'globex',
    amount: 1200,
  });
  const cards = await posted(trackingId, 3);
  // Every update of the first attempt fails.
  s.slack.failNext('chat.update', 3, 503);
  const answer = await decide(trackingId, tokens.bob, { type: 'approve' });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.body.outcome.status, 'approved');
  const output = await s.stack.result(runId);
  assert.equal(output.status, 'completed');
  assert.equal(toolRuns.filter((r) => r.runId === runId).length, 1);
  for (const update of await updated(cards)) assert.match(textOf(update), /\*Approved\* by bob \(api\)/);
  // Each card was tried, failed, and updated once.
  for (const card of cards) {
    const tries = s.slack.calls.filter(
      (c) => c.method === 'chat.update' && `${String(c.args.channel)}/${String(c.args.ts)}` === idOf(card),
    );
    assert.ok(tries.length >= 2, `${idOf(card)}: tried again`);
    assert.equal(updatesOf(card).length, 1);
  }
});

test('a card Slack no longer has is given up on: the others are updated, the run goes on', async () => {
  const { runId, trackingId } = await gated('bank', 'follow: deleted card', 'transfer', {
    from: 'ops',
    to: 'initech',
    amount: 1300,
  });
  const cards = await posted(trackingId, 3);
  // The first card updated was deleted in Slack: Slack refuses it for good.
  s.slack.failNext('chat.update', 1, 200, 'message_not_found');
  const answer = await decide(trackingId, tokens.alice, { type: 'reject', message: 'not today' }, 'inbox');
  assert.equal(answer.status, 200, answer.text);
  assert.equal((await s.stack.result(runId)).status, 'completed');
  const tries = cards.map(
    (card) =>
      s.slack.calls.filter(
        (c) => c.method === 'chat.update' && `${String(c.args.channel)}/${String(c.args.ts)}` === idOf(card),
      ).length,
  );
  // Each card was tried once: the refused one is not tried again, the others took the update.
  assert.deepEqual(tries, [1, 1, 1]);
  const done = cards.filter((card) => updatesOf(card).length === 1);
  assert.equal(done.length, 2);
  for (const update of done.map((card) => updatesOf(card)[0]!))
    assert.match(textOf(update), /\*Rejected\* by alice \(inbox\)/);
});
