// Slack (issue 43): each approval is posted as a card to the channel and to the DMs of those who
// may decide; a Slack outage delays the cards and never the email; a secret is never taken in Slack.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call, calls, say } from '../support/fake-model.js';
import { tokens } from '../support/api-agents.js';
import { reportRun } from '../support/secret-runs.js';
import { waitFor } from '../support/wait-for.js';
import type { SlackCall } from './fake-slack.js';
import { CHANNEL, startSlackStack, textOf, type SlackStack } from './slack-stack.js';

let s: SlackStack;
before(async () => {
  s = await startSlackStack();
});
after(() => s?.close());

type Block = { type: string; text?: { text: string }; fields?: { text: string }[]; elements?: Element[] };
type Element = {
  action_id?: string;
  value?: string;
  url?: string;
  text?: { text: string } | string;
  elements?: Element[];
};

const blocksOf = (card: SlackCall) => card.args.blocks as Block[];
const buttonsOf = (card: SlackCall) =>
  blocksOf(card)
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements ?? []);

test('a gated call posts its card to the channel and to the DMs of the approvers it needs', async () => {
  const runId = await s.stack.startRun(
    'bank',
    'slack card: transfer',
    tokens.victor,
    calls(
      call('transfer', {
        from: 'ops',
        to: 'acme',
        amount: 1500,
        memo: '<!channel> pay <https://evil.example|now>',
      }),
    ),
    say('Done.'),
  );
  const [pending] = await s.stack.waitForPending(runId);
  const { trackingId } = pending!;
  // alice by her Slack id, bob by his email (users.lookupByEmail); victor may not decide.
  await waitFor(async () => (s.cards(trackingId).length >= 3 ? true : undefined), 'three cards');
  const [channel] = s.cards(trackingId, CHANNEL);
  const [alice] = s.cards(trackingId, 'D-U0ALICE');
  const [bob] = s.cards(trackingId, 'D-U0BOB');
  assert.ok(channel && alice && bob);
  assert.equal(s.cards(trackingId).length, 3);
  assert.ok(
    s.slack.calls.some((c) => c.method === 'users.lookupByEmail' && c.args.email === 'bob@example.com'),
  );
  assert.ok(
    !s.slack.calls.some((c) => c.method === 'users.lookupByEmail' && c.args.email === 'alice@example.com'),
  );

  const text = textOf(channel);
  assert.match(text, /Agent bank wants to call transfer/);
  assert.match(text, /Transfer 1500 from ops to acme/, 'the description');
  assert.match(text, /admin or treasurer: 0 of 1/, 'the requirement still open, in the rule words');
  assert.match(text, /"amount": 1500/, 'the arguments');
  assert.match(text, /Requested by\*\nvictor/);
  assert.ok(text.includes(`<!date^${Math.floor(Date.parse(pending!.deadline) / 1000)}^`), 'the deadline');
  // The run's text can neither mention everyone nor forge a link in Slack's markup.
  assert.ok(!/<!channel>|<https:\/\/evil/.test(JSON.stringify(channel.args.text)));
  assert.ok(!JSON.stringify(blocksOf(channel).filter((b) => b.type !== 'rich_text')).includes('<!channel>'));

  const buttons = buttonsOf(channel);
  const value = JSON.stringify({ trackingId, revision: 1 });
  assert.equal(buttons.find((b) => b.action_id === 'countersign_approve')?.value, value);
  assert.equal(buttons.find((b) => b.action_id === 'countersign_reject')?.value, value);
  assert.equal(
    buttons.find((b) => b.action_id === 'countersign_inbox')?.url,
    `${s.stack.url}/#/approvals/${encodeURIComponent(trackingId)}`,
  );
  // carol has no Slack account: she is mailed, and not looked up again.
  await notificationsDone(runId);
  assert.equal(s.cards(trackingId).length, 3);
  assert.equal(s.emails(trackingId).length, 3);
});

test('a secret approval card says what is needed and links to the inbox, and no Slack click supplies or refuses it', async () => {
  const { runId, approval } = await reportRun(s.stack, 'slack card: secret');
  await waitFor(
    async () => (s.cards(approval.trackingId, CHANNEL).length === 1 ? true : undefined),
    'the card',
  );
  const [card] = s.cards(approval.trackingId, CHANNEL);
  const text = textOf(card!);
  assert.match(text, /Secret needed: the reporting database password \(db_password\), for run_report/);
  assert.match(text, /never supplied in Slack/);
  const buttons = buttonsOf(card!);
  assert.deepEqual(
    buttons.map((b) => b.action_id),
    ['countersign_inbox'],
  );
  // A click forged from another card's button, signed as Slack signs, is refused by the channel rule.
  const forged: SlackCall = {
    method: 'chat.postMessage',
    args: {
      channel: CHANNEL,
      blocks: [
        {
          type: 'actions',
          elements: [
            {
              action_id: 'countersign_reject',
              value: JSON.stringify({ trackingId: approval.trackingId, revision: 1 }),
            },
          ],
        },
      ],
    },
  };
  // Reject opens the modal for anyone mapped; its submission is what decides.
  assert.equal((await s.click('U0ALICE', forged, 'countersign_reject', 'secret-1')).status, 200);
  await s.slack.waitForCalls((c) => c.method === 'views.open');
  assert.equal((await s.submitReject('U0ALICE', 'not now')).status, 200);
  const [refused] = await s.slack.waitForResponses('secret-1');
  assert.match(String(refused!.body.text), /never supplied, nor refused, through Slack/);
  const state = await s.stack.state(runId);
  assert.equal(state.pending.find((a) => a.trackingId === approval.trackingId)?.status, 'pending');
});

/** The approval's notifications are done: their activity completed, every delivery through or given up. */
async function notificationsDone(runId: string): Promise<void> {
  await waitFor(async () => {
    const events = (await s.stack.client.workflow.getHandle(runId).fetchHistory()).events ?? [];
    const scheduled = events.filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'requestApproval',
    );
    const completed = events.filter((e) =>
      scheduled.some(
        (x) => Number(x.eventId) === Number(e.activityTaskCompletedEventAttributes?.scheduledEventId),
      ),
    );
    return completed.length === 1 ? true : undefined;
  }, 'the notifications to be done');
}

test('a Slack outage holds back no email; its cards go out once Slack is back, each once', async () => {
  const before = s.slack.calls.length;
  s.slack.failNext('chat.postMessage', 1_000, 503);
  const runId = await s.stack.startRun(
    'bank',
    'slack card: outage',
    tokens.victor,
    calls(call('transfer', { from: 'ops', to: 'globex', amount: 700 })),
    say('Done.'),
  );
  const [pending] = await s.stack.waitForPending(runId);
  const { trackingId } = pending!;
  await waitFor(async () => (s.emails(trackingId).length === 3 ? true : undefined), 'the emails');
  // The notifications' activity is retried while Slack is down: each card was tried again.
  const posts = (channel: string) => s.cards(trackingId, channel);
  await waitFor(async () => (posts(CHANNEL).length >= 2 ? true : undefined), 'the card tried twice');
  s.slack.failNext('chat.postMessage', 0);
  await notificationsDone(runId);
  for (const channel of [CHANNEL, 'D-U0ALICE', 'D-U0BOB']) {
    assert.ok(posts(channel).length >= 2, `${channel}: tried again`);
    assert.equal(posts(channel).filter((c) => c.ok).length, 1, `${channel}: posted once`);
  }
  // The emails were written once, whatever Slack did; carol, not in Slack, was looked up once.
  assert.equal(s.emails(trackingId).length, 3);
  assert.equal(
    s.slack.calls
      .slice(before)
      .filter((c) => c.method === 'users.lookupByEmail' && c.args.email === 'carol@example.com').length,
    1,
  );
});
