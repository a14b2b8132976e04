// The messages a notifier posts for an approval follow it (issue 43): the run keeps their ids and,
// when the approval settles or a new proposal replaces the one they show, has them updated, through a
// continue-as-new too; the histories recorded here replay the patch that brought it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Notifier } from '../../activities/notifier.js';
import { cancelRun } from '../../client/index.js';
import type { EditNote, MessagesUpdate } from '../../workflows/activity-types.js';
import { FOLLOW_MESSAGES_PATCH, GENERATION_2_PATCH } from '../../workflows/patches.js';
import { call, calls, say } from '../support/fake-model.js';
import { historyChain } from '../support/history-chain.js';
import { bankAgent } from './fixtures/agents.js';
import { startHarness, uniqueInput, waitFor, type Harness } from './fixtures/harness.js';
import { treasuryAgent } from './fixtures/tiered-agents.js';

/** Posts one message per notification (its id names the approval and revision), and keeps the updates. */
function postingNotifier() {
  const notified: { trackingId: string; revision: number; edit?: EditNote }[] = [];
  const updates: MessagesUpdate[] = [];
  const notifier: Notifier = {
    async notify(approval, progress, edit) {
      const key = `card:r${approval.revision}`;
      if (progress.sent.includes(key)) return;
      notified.push({
        trackingId: approval.trackingId,
        revision: approval.revision,
        ...(edit ? { edit } : {}),
      });
      progress.onPosted({ channel: 'C1', ts: `${approval.trackingId}/r${approval.revision}` });
      progress.onSent(key);
    },
    async update(update) {
      updates.push(update);
    },
  };
  const of = (trackingId: string) => updates.filter((u) => u.approval.trackingId === trackingId);
  return { notifier, notified, of };
}

/** The patches whose markers the run's history records. */
async function patchesOf(h: Harness, runId: string): Promise<string[]> {
  const history = await h.client.workflow.getHandle(runId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const marker = e.markerRecordedEventAttributes;
    const data =
      marker?.markerName === 'core_patch' ? marker.details?.['patch-data']?.payloads?.[0]?.data : null;
    return data ? [(JSON.parse(Buffer.from(data).toString('utf8')) as { id: string }).id] : [];
  });
}

const tess = { id: 'tess', roles: ['treasury'] };
const troy = { id: 'troy', roles: ['treasury'] };
const cora = { id: 'cora', roles: ['cfo'] };
const cole = { id: 'cole', roles: ['cfo'] };

describe('posted messages follow their approval', () => {
  let h: Harness;
  const posting = postingNotifier();
  before(async () => {
    h = await startHarness({ notifier: posting.notifier });
  });
  after(async () => {
    await h.close();
  });

  it('an edit replaces the messages of the revision it changed; the end updates every one', async () => {
    const input = uniqueInput('messages edit');
    h.fake.script(input, calls(call('payout', { to: 'acme', amount: 250 }, 'p1')), say('done'));
    const runId = await h.start(treasuryAgent, input, 'requester-rita');
    const [view] = await h.waitForPending(runId, 1);
    const { trackingId } = view!;
    await waitFor(
      async () => (posting.notified.some((n) => n.trackingId === trackingId) ? true : undefined),
      'the first message',
    );

    // Into the large tier: two of cfo still needed, and a new message for revision 2.
    const edited = await h.decide(
      trackingId,
      { type: 'edit', args: { to: 'acme', amount: 5000 } },
      { approver: tess, channel: 'inbox' },
    );
    assert.equal(edited.status, 'pending');
    const [replaced] = await waitFor(async () => {
      const found = posting.of(trackingId);
      return found.length === 1 ? found : undefined;
    }, 'the first message replaced');
    assert.equal(replaced!.change.type, 'edited');
    assert.deepEqual(replaced!.messages, [{ channel: 'C1', ts: `${trackingId}/r1` }]);
    // The message is told about as it showed the proposal, with what changed from it.
    assert.equal(replaced!.approval.revision, 1);
    assert.deepEqual(replaced!.approval.args, { to: 'acme', amount: 250 });
    assert.deepEqual(replaced!.change, {
      type: 'edited',
      by: { actor: 'tess', channel: 'inbox' },
      at: (replaced!.change as { at: string }).at,
      revision: 2,
      diff: [{ path: '/amount', before: 250, after: 5000 }],
    });
    // Revision 2 is notified with the edit that made it.
    const second = await waitFor(
      async () => posting.notified.find((n) => n.trackingId === trackingId && n.revision === 2),
      'revision 2 notified',
    );
    assert.deepEqual(second.edit, {
      by: { actor: 'tess', channel: 'inbox' },
      from: 1,
      diff: [{ path: '/amount', before: 250, after: 5000 }],
    });

    for (const approver of [troy, cora]) await h.decide(trackingId, { type: 'approve' }, { approver });
    assert.equal(
      (await h.decide(trackingId, { type: 'approve' }, { approver: cole, channel: 'cli' })).status,
      'edited',
    );
    assert.equal((await h.outcome(runId)).status, 'completed');
    // One update for both messages, once settled: how it ended, by the last decision and its channel.
    const updates = posting.of(trackingId);
    assert.equal(updates.length, 2);
    const settled = updates[1]!;
    assert.deepEqual(settled.change, { type: 'settled', by: { actor: 'cole', channel: 'cli' } });
    assert.equal(settled.approval.status, 'edited');
    assert.deepEqual(
      settled.messages.map((m) => m.ts),
      [`${trackingId}/r1`, `${trackingId}/r2`],
    );
    assert.ok((await patchesOf(h, runId)).some((p) => p === FOLLOW_MESSAGES_PATCH || p === GENERATION_2_PATCH));
    await h.saveHistory('messages-edit', runId);
  });

  it('a cancelled run updates its messages before it ends', async () => {
    const input = uniqueInput('messages cancel');
    h.fake.script(
      input,
      calls(call('transfer', { from: 'A', to: 'B', amount: 5000 }, 'c1')),
      say('unreachable'),
    );
    const runId = await h.start(bankAgent, input);
    const [view] = await h.waitForPending(runId, 1);
    const { trackingId } = view!;
    await waitFor(
      async () => (posting.notified.some((n) => n.trackingId === trackingId) ? true : undefined),
      'the message',
    );
    // The notification is done: its messages are known to the run.
    await waitFor(async () => {
      const events = (await h.client.workflow.getHandle(runId).fetchHistory()).events ?? [];
      return events.some((e) => e.activityTaskCompletedEventAttributes) ? true : undefined;
    }, 'the notification to complete');
    await cancelRun(h.client, runId, { actor: 'dana', channel: 'inbox' });
    assert.equal((await h.outcome(runId)).status, 'cancelled');
    const updates = posting.of(trackingId);
    assert.equal(updates.length, 1, 'updated before the run ended');
    assert.deepEqual(updates[0]!.change, { type: 'settled', by: { actor: 'dana', channel: 'inbox' } });
    assert.equal(updates[0]!.approval.status, 'cancelled');
    await h.saveHistory('messages-cancel', runId);
  });
});

describe('posted messages follow their approval through a continue-as-new', () => {
  let h: Harness;
  const posting = postingNotifier();
  before(async () => {
    h = await startHarness({
      // Below the first turn's history: the server suggests continuing while the turn waits.
      dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 12 },
      notifier: posting.notifier,
    });
  });
  after(async () => {
    await h.close();
  });

  it('the next run of the chain updates the messages the first one posted', async () => {
    const input = uniqueInput('messages continue');
    h.fake.script(
      input,
      calls(call('transfer', { from: 'ops', to: 'acme', amount: 2000 }, 'pay')),
      say('Paid.'),
    );
    const runId = await h.start(bankAgent, input);
    const [view] = await h.waitForPending(runId, 1);
    const { trackingId } = view!;
    await waitFor(async () => {
      const state = await h.state(runId);
      return state.events.some((e) => e.type === 'run.continued') ? true : undefined;
    }, 'the run to continue while its approval waits');
    await h.decide(trackingId, { type: 'approve' }, { channel: 'email' });
    assert.equal((await h.outcome(runId)).status, 'completed');
    assert.equal((await historyChain(h.client, runId)).length, 2);
    const updates = posting.of(trackingId);
    assert.equal(updates.length, 1);
    assert.deepEqual(updates[0]!.messages, [{ channel: 'C1', ts: `${trackingId}/r1` }]);
    assert.deepEqual(updates[0]!.change, { type: 'settled', by: { actor: 'alice', channel: 'email' } });
    await h.saveHistory('messages-continued', runId);
  });
});
