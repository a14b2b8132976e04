import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { before, describe, it } from 'node:test';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { WORKFLOWS_PATH } from '../../worker/index.js';
import { installTestRuntime } from '../support/worker.js';
import { readHistoryFile, type RecordedHistory } from './fixtures/history-file.js';

const dir = new URL('../histories/', import.meta.url);
const ALTERED_WORKFLOWS = fileURLToPath(new URL('./fixtures/altered-workflow.ts', import.meta.url));

function loadHistories(): RecordedHistory[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => readHistoryFile(new URL(name, dir)));
}

async function replayAll(options: ReplayWorkerOptions) {
  const results = [];
  for await (const result of Worker.runReplayHistories(options, loadHistories())) results.push(result);
  return results;
}

describe('replay of recorded histories', () => {
  // The non-determinism below is provoked on purpose; its warnings are noise.
  before(() => installTestRuntime('ERROR'));

  it('replays every recorded scenario against the current workflow code', async () => {
    const results = await replayAll({ workflowsPath: WORKFLOWS_PATH });
    // Every scenario of the workflow suite is recorded (scripts/record-histories.ts).
    assert.ok(results.length >= 12, `expected the recorded scenarios, found ${results.length}`);
    for (const result of results)
      assert.equal(result.error, undefined, `${result.workflowId}: ${String(result.error)}`);
  });

  it('replays the edit/approve race: both decisions taken in one workflow task, one outcome', async () => {
    // Recorded by revisions-plan-result.test.ts: an edit and an approve on the revision before it,
    // signalled while no worker ran. Were the stale approve taken, the quorum would be met in that
    // task and the run would go on to the tool there: the replay would not match.
    const race = readHistoryFile(new URL('edit-approve-race.json', dir));
    const events = race.history.events ?? [];
    const signalled = events.flatMap((e, i) => (e.workflowExecutionSignaledEventAttributes ? [i] : []));
    assert.ok(signalled.length >= 2, 'the edit and the approve are in the history');
    assert.ok(
      !events.slice(signalled[0], signalled[1]).some((e) => e.workflowTaskStartedEventAttributes),
      'no workflow task ran between the edit and the approve',
    );
    await Worker.runReplayHistory({ workflowsPath: WORKFLOWS_PATH }, race.history, race.workflowId);
  });

  it('catches a non-deterministic change to the workflow', async () => {
    const results = await replayAll({ workflowsPath: ALTERED_WORKFLOWS });
    assert.ok(results.length > 0);
    for (const result of results) {
      assert.ok(
        result.error instanceof DeterminismViolationError,
        `${result.workflowId}: ${String(result.error)}`,
      );
    }
  });
});
