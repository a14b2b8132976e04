// Slack (issue 43): a call nobody knows the end of is posted with its three answers, in the words
// the inbox and the email use; one answered in Slack decides the outcome under the same rules.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { OUTCOME_ANSWER } from '../../notify/outcome-wording.js';
import { toolRuns, tokens } from '../support/api-agents.js';
import { unknownRestart } from '../support/unknown-restart.js';
import { waitFor } from '../support/wait-for.js';
import type { SlackCall } from './fake-slack.js';
import { CHANNEL, startSlackStack, type SlackStack } from './slack-stack.js';

let s: SlackStack;
before(async () => {
  s = await startSlackStack();
});
after(() => s?.close());

type Element = { action_id?: string; url?: string; text?: { text: string } };
const buttonsOf = (card: SlackCall) =>
  (card.args.blocks as { type: string; elements?: Element[] }[])
    .filter((block) => block.type === 'actions')
    .flatMap((block) => block.elements ?? []);

test('an unknown outcome is posted with its three answers, and "it did not happen" from Slack runs the call again', async () => {
  const { runId, service, outcome } = await unknownRestart(s.stack, 'slack outcome', async (trackingId) => {
    const approved = await s.stack.http('POST', `/api/approvals/${trackingId}/decision`, {
      token: tokens.alice,
      body: { type: 'approve' },
    });
    assert.equal(approved.status, 200, approved.text);
  });
  const card = await waitFor(
    async () => s.cards(outcome.trackingId, CHANNEL)[0],
    "the outcome's card in the channel",
  );
  const buttons = buttonsOf(card);
  assert.deepEqual(
    buttons.map((b) => b.text?.text),
    [OUTCOME_ANSWER.approve, OUTCOME_ANSWER.reject, `${OUTCOME_ANSWER.respond}: answer in the inbox`],
  );
  assert.match(buttons.at(-1)!.url!, new RegExp(`#/approvals/${encodeURIComponent(outcome.trackingId)}$`));
  assert.equal(toolRuns.filter((r) => r.runId === runId).length, 1, 'one attempt so far');

  await s.click('U0ALICE', card, 'countersign_approve', 'outcome-again');
  const result = await s.stack.result(runId);
  assert.equal(result.status, 'completed');
  assert.match(result.output ?? '', new RegExp(`restarted.*${service}`));
  // Run again once, on her word, recorded as hers through Slack.
  assert.equal(toolRuns.filter((r) => r.runId === runId).length, 2);
  const state = await s.stack.state(runId);
  const answered = state.approvals.find((a) => a.trackingId === outcome.trackingId)!;
  assert.equal(answered.status, 'approved');
  assert.deepEqual(
    answered.approvals.map(({ approver, channel }) => ({ approver, channel })),
    [{ approver: 'alice', channel: 'slack' }],
  );
});
