import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { temporal } from '@temporalio/proto';
import { call, calls, say } from '../support/fake-model.js';
import { bankAgent } from './fixtures/agents.js';
import { admin, startHarness, uniqueInput, type Harness } from './fixtures/harness.js';

// Every search-attribute upsert and memo change is a row the server rewrites in its lists, with
// every index on it: what a run costs the server beyond its history. Counted in a plain run.

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const upsertedKeys = (e: HistoryEvent) =>
  Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {});

function visibilityWrites(events: HistoryEvent[]) {
  return {
    searchAttributes: events.filter((e) => upsertedKeys(e).some((k) => k !== 'TemporalChangeVersion')).length,
    patchVersions: events.filter((e) => upsertedKeys(e).includes('TemporalChangeVersion')).length,
    memos: events.filter((e) => e.workflowPropertiesModifiedEventAttributes).length,
    patchMarkers: events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch').length,
  };
}

describe('what a run writes to the lists', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h?.close();
  });

  it('one approved call: each change of status or pending approvals written once, one patch marker', async () => {
    const input = uniqueInput('one transfer, approved');
    h.fake.script(input, calls(call('transfer', { from: 'A', to: 'B', amount: 1500 }, 't1')), say('done'));
    const runId = await h.start(bankAgent, input, 'requester-bob');
    const [view] = await h.waitForPending(runId, 1);
    const outcome = await h.decide(view!.trackingId, { type: 'approve' }, { approver: admin });
    assert.equal(outcome.accepted, true, outcome.reason);
    assert.deepEqual(await h.outcome(runId), { status: 'completed', output: 'done' });
    const events = (await h.client.workflow.getHandle(runId).fetchHistory()).events ?? [];
    // Asked for, approved, done; the change time at each step; the start's own values not rewritten.
    assert.deepEqual(visibilityWrites(events), {
      searchAttributes: 5,
      memos: 2,
      patchMarkers: 1,
      patchVersions: 1,
    });
    const [first] = events.filter((e) => upsertedKeys(e).some((k) => k.startsWith('Countersign')));
    assert.deepEqual(upsertedKeys(first!), ['CountersignChangedAt']);
    await h.saveHistory('lean-visibility', runId);
  });
});
