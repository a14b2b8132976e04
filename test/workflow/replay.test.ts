import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { before, describe, it } from 'node:test';
import { Worker } from '@temporalio/worker';
import { readHistoryFile } from '../../temporal/history-file.js';
import { HistoryReplayError, replayHistories } from '../../testing/index.js';
import { WORKFLOWS_PATH } from '../../worker/index.js';
import { installTestRuntime } from '../support/worker.js';

const dir = new URL('../histories/', import.meta.url);
const ALTERED_WORKFLOWS = fileURLToPath(new URL('./fixtures/altered-workflow.ts', import.meta.url));

describe('replay of recorded histories', () => {
  // The non-determinism below is provoked on purpose; its warnings are noise.
  before(() => installTestRuntime('ERROR'));

  it('replays every recorded scenario against the current workflow code', async () => {
    // The library's replay helper, as a team replays its own recorded runs; it throws on a failure.
    const results = await replayHistories(dir);
    // Every scenario of the workflow suite is recorded (scripts/record-histories.ts).
    assert.ok(results.length >= 12, `expected the recorded scenarios, found ${results.length}`);
    for (const result of results) assert.ok(result.ok, `${result.workflowId}: ${String(result.error)}`);
  });

  it('replays the histories recorded by every earlier release against the current workflow code', async () => {
    // Frozen at each release by `npm run histories:freeze`; re-recording test/histories/ never
    // touches them, so a deploy of this code over runs started by a release before is checked here.
    const releases = readdirSync(new URL('releases/', dir));
    assert.ok(releases.includes('0.1.0'), `the releases with histories: ${releases.join(', ')}`);
    for (const release of releases) {
      const results = await replayHistories(new URL(`releases/${release}/`, dir));
      assert.ok(results.length >= 12, `${release}: ${results.length} histories`);
      for (const result of results)
        assert.ok(result.ok, `${release} ${result.workflowId}: ${String(result.error)}`);
    }
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
    const results = await replayHistories(dir, { workflowsPath: ALTERED_WORKFLOWS, throwOnFailure: false });
    assert.ok(results.length > 0);
    for (const result of results) {
      assert.ok(!result.ok && result.nondeterministic, `${result.workflowId}: ${String(result.error)}`);
    }
    // By default the helper throws, naming every run that fails, its file and the determinism error.
    await assert.rejects(replayHistories(dir, { workflowsPath: ALTERED_WORKFLOWS }), (error: Error) => {
      assert.ok(error instanceof HistoryReplayError);
      assert.equal(error.failures.length, results.length);
      for (const result of results) {
        assert.ok(error.message.includes(result.workflowId), `the message names ${result.workflowId}`);
        assert.ok(error.message.includes(result.file!), `the message names ${result.file}`);
      }
      assert.match(error.message, /non-determinism: .*\[TMPRL1100\]/);
      return true;
    });
  });
});
