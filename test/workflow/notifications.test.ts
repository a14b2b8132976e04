import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Notifier } from '../../activities/notifier.js';
import type { ApprovalView } from '../../protocol/index.js';
import { eventsQuery } from '../../workflows/definitions.js';
import { call, calls, say } from '../support/fake-model.js';
import { bankAgent } from './fixtures/agents.js';
import { installTestRuntime } from '../support/worker.js';
import { startHarness, uniqueInput, waitFor, type Harness } from './fixtures/harness.js';

/** Delivers an email and a webhook per approval; the first attempt for a flaky recipient dies between the two. */
const deliveries: { key: string; approval: ApprovalView }[] = [];
const failedOnce = new Set<string>();
const notifier: Notifier = {
  async notify(approval, progress) {
    for (const key of [`${approval.trackingId}:email`, `${approval.trackingId}:webhook`]) {
      if (progress.sent.includes(key)) continue;
      if (key.endsWith(':webhook') && approval.args.to === 'flaky@example.com' && !failedOnce.has(key)) {
        failedOnce.add(key);
        throw new Error('webhook endpoint unavailable');
      }
      deliveries.push({ key, approval });
      progress.onSent(key);
    }
  },
};

describe('notifications', () => {
  let h: Harness;
  before(async () => {
    // The SDK logs every failed activity attempt; here a notification failure is provoked on purpose.
    installTestRuntime('ERROR');
    h = await startHarness({ notifier });
  });
  after(async () => {
    await h.close();
  });

  it('notifies once per approval across activity retries, and streams the run log by event id', async () => {
    const input = uniqueInput('email flaky');
    h.fake.script(
      input,
      calls(call('send_email', { to: 'flaky@example.com', body: 'hi' }, 'm1')),
      say('sent'),
    );
    const runId = await h.start(bankAgent, input);
    const [view] = await h.waitForPending(runId, 1);
    const keys = await waitFor(async () => {
      const mine = deliveries.filter((d) => d.approval.trackingId === view!.trackingId).map((d) => d.key);
      return mine.length === 2 ? mine : undefined;
    }, 'both notifications');
    // The retried attempt skipped the email the first attempt had sent.
    assert.deepEqual(keys, [`${view!.trackingId}:email`, `${view!.trackingId}:webhook`]);
    assert.ok(failedOnce.has(`${view!.trackingId}:webhook`));
    const sent = deliveries.find((d) => d.key === `${view!.trackingId}:email`)!.approval;
    assert.equal(sent.status, 'pending');
    assert.deepEqual(sent.allowedDecisions, ['approve', 'edit', 'reject']);

    await h.decide(view!.trackingId, { type: 'approve' });
    await h.result(runId);
    const handle = h.client.workflow.getHandle(runId);
    const all = await handle.query(eventsQuery, 0);
    assert.deepEqual(
      all.map((e) => e.type),
      [
        'run.started',
        'model.responded',
        'approval.requested',
        'approval.decided',
        'approval.settled',
        'tool.ran',
        'model.responded',
        'run.finished',
      ],
    );
    assert.deepEqual(
      all.map((e) => e.id),
      [1, 2, 3, 4, 5, 6, 7, 8],
    );
    const resumed = await handle.query(eventsQuery, 5);
    assert.deepEqual(
      resumed.map((e) => e.id),
      [6, 7, 8],
    );
    await h.saveHistory('notification-retry', runId);
  });
});
